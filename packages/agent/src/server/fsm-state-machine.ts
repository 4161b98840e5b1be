import { createReadStream } from "node:fs";
import { type ApplyResult, type Command, LogMachine, type StateStore } from "@cairn/fsm";
import type { SnapshotOutput, StateMachine } from "@cairn/raft";

/** What the leader's duties learn from each applied entry (on every server; only the leader acts). */
export interface AppliedListener {
  /** A command was applied at `index` with `result`. */
  applied(command: Command, result: ApplyResult): void;
  /** The whole state was replaced (a snapshot restore or an install from the leader). */
  restored(): void;
}

/**
 * The Raft state machine over the fsm's LogMachine (which knows every kind of entry and the snapshot
 * layout): tells the listener what each entry did, and writes Raft snapshots straight into the file.
 */
export class FsmStateMachine implements StateMachine<ApplyResult> {
  readonly machine: LogMachine;
  private listener: AppliedListener | undefined;

  constructor(store?: StateStore) {
    this.machine = new LogMachine(store);
  }

  get store(): StateStore {
    return this.machine.store;
  }

  listen(listener: AppliedListener | undefined): void {
    this.listener = listener;
  }

  apply(index: number, data: Uint8Array): ApplyResult {
    const applied = this.machine.apply(index, data);
    if (applied.kind === "command") this.listener?.applied(applied.command, applied.result);
    else if (applied.kind === "restored") this.listener?.restored();
    return applied.result;
  }

  async snapshot(out: SnapshotOutput): Promise<void> {
    // The frames are taken now, synchronously; entries applied while they are written do not touch them.
    const frames = this.machine.snapshot();
    for (const frame of frames) await out.write(Uint8Array.prototype.slice.call(frame));
  }

  async restore(file: string): Promise<void> {
    await this.machine.restore(createReadStream(file));
    this.listener?.restored();
  }
}
