import { readFile } from "node:fs/promises";
import type { SnapshotOutput, StateMachine } from "../../src/node/state-machine.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Commands are `key=value`; applying one returns the index it was applied at. */
export function putCommand(key: string, value: string): Uint8Array {
  return encoder.encode(`${key}=${value}`);
}

/** A small in-memory key/value state machine, with the history of indexes it applied (to check exactly-once). */
export class KvMachine implements StateMachine<number> {
  readonly data = new Map<string, string>();
  readonly appliedIndexes: number[] = [];
  restoredFrom: string | undefined;
  /** Snapshots whose every chunk was written. */
  snapshotsWritten = 0;
  /** Snapshots waiting at the gate of `holdSnapshots`. */
  snapshotsHeld = 0;
  #gate: Promise<void> | undefined;

  /** Snapshots taken from now on capture their state, then wait to write it until the returned release. */
  holdSnapshots(): () => void {
    let release = () => {};
    this.#gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return release;
  }

  apply(index: number, command: Uint8Array): number {
    const text = decoder.decode(command);
    const eq = text.indexOf("=");
    if (eq < 0) throw new Error(`bad command ${text}`);
    this.data.set(text.slice(0, eq), text.slice(eq + 1));
    this.appliedIndexes.push(index);
    return index;
  }

  async snapshot(out: SnapshotOutput): Promise<void> {
    const bytes = encoder.encode(JSON.stringify([...this.data])); // captured now, written after
    if (this.#gate) {
      this.snapshotsHeld++;
      await this.#gate;
    }
    for (let i = 0; i < bytes.length; i += 64 * 1024) await out.write(bytes.subarray(i, i + 64 * 1024));
    this.snapshotsWritten++;
  }

  async restore(file: string): Promise<void> {
    const entries = JSON.parse(decoder.decode(await readFile(file))) as Array<[string, string]>;
    this.data.clear();
    for (const [k, v] of entries) this.data.set(k, v);
    this.appliedIndexes.length = 0;
    this.restoredFrom = file;
  }
}
