import { createReadStream } from "node:fs";
import { type ApplyResult, type Command, decodeCommand, StateStore } from "@cairn/fsm";
import type { SnapshotOutput, StateMachine } from "@cairn/raft";
import { archiveAtIndex, isRestoreEntry } from "./restore-entry.js";

/** What the leader's duties learn from each applied entry (on every server; only the leader acts). */
export interface AppliedListener {
  /** A command was applied at `index` with `result`. */
  applied(command: Command, result: ApplyResult): void;
  /** The whole state was replaced (a snapshot restore or an install from the leader). */
  restored(): void;
}

/**
 * The Raft state machine over the fsm's StateStore: normal entries are commands (decoded once here so
 * listeners see them without a second decode), restore entries replace the state, and Raft snapshots are
 * the store's snapshot frames written straight into the snapshot file.
 */
export class FsmStateMachine implements StateMachine<ApplyResult> {
  readonly store: StateStore;
  private listener: AppliedListener | undefined;

  constructor(store = new StateStore()) {
    this.store = store;
  }

  listen(listener: AppliedListener | undefined): void {
    this.listener = listener;
  }

  apply(index: number, data: Uint8Array): ApplyResult {
    if (isRestoreEntry(data)) {
      // restoreSync builds the new tables completely before installing them: a bad archive throws here
      // and leaves the state as it was.
      this.store.restoreSync(archiveAtIndex(data, index));
      this.listener?.restored();
      return true;
    }
    const command = decodeCommand(data);
    const result = this.store.applyCommand(index, command);
    this.listener?.applied(command, result);
    return result;
  }

  async snapshot(out: SnapshotOutput): Promise<void> {
    // The view is taken now, synchronously; entries applied while the frames are written do not touch it.
    const frames = this.store.view().snapshot();
    for (const frame of frames) await out.write(Uint8Array.prototype.slice.call(frame));
  }

  async restore(file: string): Promise<void> {
    await this.store.restore(createReadStream(file));
    this.listener?.restored();
  }
}
