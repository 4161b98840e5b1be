import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { type Frame, FrameKind } from "./frames.js";

/**
 * Streams one snapshot file over a link, chunk by chunk, with at most `window` chunks not yet written by the
 * receiver: neither side ever holds more than window × chunk size of it in memory.
 */
export class SnapshotSender<M> {
  private acked = -1;
  private wake: (() => void) | undefined;
  private failure: Error | undefined;
  private finish: ((err?: Error) => void) | undefined;

  constructor(
    readonly stream: number,
    private readonly sendFrame: (frame: Frame<M>) => void,
    private readonly chunkBytes: number,
    private readonly window: number,
  ) {}

  async run(message: M, path: string): Promise<void> {
    const done = new Promise<void>((resolve, reject) => {
      this.finish = (err) => (err ? reject(err) : resolve());
    });
    done.catch(() => {}); // observed below; keeps an early failure from being reported as unhandled
    const { size } = await stat(path);
    this.sendFrame({ kind: FrameKind.snapshotBegin, stream: this.stream, message, size });
    let seq = 0;
    let crc = 0;
    for await (const chunk of createReadStream(path, { highWaterMark: this.chunkBytes })) {
      const data = chunk as Buffer;
      while (seq - this.acked > this.window && !this.failure) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
      if (this.failure) throw this.failure;
      crc = crc32(data, crc);
      this.sendFrame({ kind: FrameKind.snapshotChunk, stream: this.stream, seq, data });
      seq++;
    }
    if (this.failure) throw this.failure;
    this.sendFrame({ kind: FrameKind.snapshotEnd, stream: this.stream, crc });
    await done;
  }

  onAck(seq: number): void {
    if (seq > this.acked) this.acked = seq;
    this.wakeUp();
  }

  onDone(ok: boolean, reason: string): void {
    if (ok) this.finish?.();
    else this.fail(new Error(`peer rejected snapshot: ${reason}`));
  }

  fail(err: Error): void {
    this.failure ??= err;
    this.finish?.(err);
    this.wakeUp();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
