import { crc32 } from "node:zlib";
import type { Logger } from "pino";
import { type AcceptorFrame, FrameKind } from "./frames.js";
import type { SnapshotSink } from "./options.js";

/**
 * The receiving end of one snapshot stream. Chunks are written one after another and each is acked once
 * written, which is what lets the sender move its window. The first failure ends the stream with a negative
 * SNAPSHOT_DONE at once (the sender must not wait for acks that will never come); chunks still in flight
 * for it are ignored.
 */
export class SnapshotReceiver {
  private nextSeq = 0;
  private received = 0;
  private crc = 0;
  private failed = false;
  private chain: Promise<void>;

  constructor(
    readonly stream: number,
    private readonly size: number,
    private readonly sink: Promise<SnapshotSink>,
    private readonly send: (frame: AcceptorFrame) => void,
    private readonly log: Logger,
  ) {
    this.chain = sink.then(
      () => {},
      (err: Error) => this.fail(err),
    );
  }

  /** Takes the next chunk; returns a reason if the sender broke the protocol. */
  chunk(seq: number, data: Uint8Array): string | undefined {
    if (this.failed) return undefined;
    if (seq !== this.nextSeq) return `snapshot chunk ${seq} arrived where ${this.nextSeq} was expected`;
    if (this.received + data.byteLength > this.size) return "snapshot longer than announced";
    this.nextSeq++;
    this.received += data.byteLength;
    this.crc = crc32(data, this.crc);
    this.step(async (sink) => {
      await sink.write(data);
      this.send({ kind: FrameKind.snapshotAck, stream: this.stream, seq });
    });
    return undefined;
  }

  end(crc: number): void {
    this.step(async (sink) => {
      if (this.received !== this.size || this.crc !== crc) {
        throw new Error(`snapshot arrived damaged (${this.received} of ${this.size} bytes)`);
      }
      await sink.commit();
      this.log.info({ stream: this.stream, size: this.size }, "snapshot received");
      this.send({ kind: FrameKind.snapshotDone, stream: this.stream, ok: true, reason: "" });
    });
  }

  abort(): void {
    this.fail(new Error("snapshot stream abandoned"));
  }

  private step(work: (sink: SnapshotSink) => Promise<void>): void {
    this.chain = this.chain
      .then(async () => {
        if (!this.failed) await work(await this.sink);
      })
      .catch((err: Error) => this.fail(err));
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.log.warn({ stream: this.stream, err: err.message }, "snapshot reception failed");
    this.send({ kind: FrameKind.snapshotDone, stream: this.stream, ok: false, reason: err.message });
    this.sink.then((sink) => sink.abort()).catch(() => {});
  }
}
