import type { ApplyResult } from "../commands/results.js";
import type { Command } from "../commands/types.js";
import { StateStore } from "../state-store.js";
import { applyError } from "../store/errors.js";
import { decodeEntry, type RestoreEntry } from "./envelope.js";
import { addChunk, openStaging, type Staging, StagingReader, stagingFrames } from "./staging.js";

/** What one applied entry did, for whoever follows the log (the leader's duties). */
export type Applied =
  | { readonly kind: "command"; readonly command: Command; readonly result: ApplyResult }
  /** The whole state was replaced. */
  | { readonly kind: "restored"; readonly result: ApplyResult }
  /** A streamed restore was opened, grown, dropped or refused; the state is as it was. */
  | { readonly kind: "staged"; readonly result: ApplyResult };

const RESTORED: Applied = { kind: "restored", result: true };
const STAGED: Applied = { kind: "staged", result: true };

/**
 * The state machine over the Raft log: decodes each entry (every kind is defined in envelope.ts) and
 * applies it to the StateStore. A streamed restore is staged here and swapped in whole by its commit
 * entry, so a restore is as atomic as a one-entry one: an incomplete restore never shows, a new begin
 * supersedes the staged one, and a Raft snapshot carries the staging along (stagingFrames).
 */
export class LogMachine {
  readonly store: StateStore;
  #staging: Staging | undefined;

  constructor(store = new StateStore()) {
    this.store = store;
  }

  /** The id of the restore being staged, if any. */
  get stagingId(): string | undefined {
    return this.#staging?.id;
  }

  /** Throws CommandDecodeError, before anything changes, for bytes that are no entry. */
  apply(index: number, data: Uint8Array): Applied {
    const entry = decodeEntry(data);
    switch (entry.kind) {
      case "command":
        return {
          kind: "command",
          command: entry.command,
          result: this.store.applyCommand(index, entry.command),
        };
      case "restore":
        // restoreSync builds the new tables completely before installing them: a bad archive throws here
        // and leaves the state as it was (what the single-entry restore always did).
        this.store.restoreSync([entry.archive], { atIndex: index });
        return RESTORED;
      default:
        return this.#restoreStep(index, entry);
    }
  }

  #restoreStep(index: number, entry: RestoreEntry): Applied {
    const staging = this.#staging;
    if (entry.kind === "restore-begin") {
      this.#staging = openStaging(entry.id);
      return STAGED;
    }
    if (staging?.id !== entry.id) {
      if (entry.kind === "restore-abort") return STAGED;
      return refused(`snapshot restore ${entry.id} is no longer in progress (another restore replaced it)`);
    }
    if (entry.kind === "restore-abort") {
      this.#staging = undefined;
      return STAGED;
    }
    if (entry.kind === "restore-chunk") {
      if (entry.seq !== staging.chunks.length) {
        this.#staging = undefined;
        return refused(
          `snapshot restore ${entry.id} lost a chunk (got ${entry.seq}, expected ${staging.chunks.length})`,
        );
      }
      this.#staging = addChunk(staging, entry.data);
      return STAGED;
    }
    this.#staging = undefined;
    if (entry.chunks !== staging.chunks.length || entry.bytes !== staging.bytes) {
      return refused(`snapshot restore ${entry.id} is incomplete`);
    }
    try {
      this.store.restoreSync(staging.chunks, { atIndex: index });
    } catch (err) {
      // The same bytes fail the same way on every server, and nothing was installed.
      return { kind: "staged", result: applyError((err as Error).message, "invalid") };
    }
    return RESTORED;
  }

  /**
   * The Raft snapshot: the state's frames, then any staged restore. Both are taken now, synchronously;
   * entries applied while the frames are consumed do not touch them.
   */
  snapshot(): Generator<Uint8Array> {
    const frames = this.store.view().snapshot();
    const staging = this.#staging;
    return (function* () {
      yield* frames;
      yield* stagingFrames(staging);
    })();
  }

  /** Replaces the state and any staging with a Raft snapshot's; a bad one throws and changes nothing. */
  async restore(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    const staged = new StagingReader();
    await this.store.restore(chunks, { trailer: staged.frame });
    this.#staging = staged.staging;
  }
}

function refused(reason: string): Applied {
  return { kind: "staged", result: applyError(reason, "conflict") };
}
