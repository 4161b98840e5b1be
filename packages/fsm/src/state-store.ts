import { decodeCommand } from "./commands/codec.js";
import { handlerFor } from "./commands/registry.js";
import type { ApplyResult } from "./commands/results.js";
import type { Command } from "./commands/types.js";
import { namespaceRefusal } from "./namespace-guard.js";
import { newTables } from "./schema.js";
import { SnapshotReader, type SnapshotReaderOptions } from "./snapshot/read.js";
import { isApplyError } from "./store/errors.js";
import { ReadMemo } from "./store/memo.js";
import { Tx } from "./store/tx.js";
import { WatchRegistry } from "./store/watch/registry.js";
import { StateView } from "./view.js";

export interface RestoreOptions extends Pick<SnapshotReaderOptions, "trailer"> {
  readonly atIndex?: number;
}

/**
 * The replicated state machine's state: applies committed commands in index order, serves O(1) read views,
 * wakes blocking queries, and streams and restores snapshots.
 */
export class StateStore {
  #tables = newTables();
  #index = 0;
  #view: StateView | undefined;
  #memo = new ReadMemo();
  readonly watches = new WatchRegistry(() => this.#index);

  /** Last applied Raft index. */
  get index(): number {
    return this.#index;
  }

  /** Decode and apply one committed entry. A CommandDecodeError is thrown before anything changes. */
  apply(index: number, data: Uint8Array): ApplyResult {
    return this.applyCommand(index, decodeCommand(data));
  }

  applyCommand(index: number, command: Command): ApplyResult {
    if (!(Number.isSafeInteger(index) && index > this.#index)) {
      throw new RangeError(`apply index ${index} must be above the last applied index ${this.#index}`);
    }
    const handler = handlerFor(command.type);
    if (!handler) throw new RangeError(`no handler for command type "${command.type}"`);
    // Nothing is stored in a namespace that does not exist or is being purged.
    const refusal = namespaceRefusal(this.#tables, command);
    if (refusal) {
      this.#index = index;
      this.#view = undefined;
      return refusal;
    }
    const tx = new Tx(handler.atomic ? this.#tables.clone() : this.#tables, index);
    const result = handler.apply(tx, command);
    this.#index = index;
    this.#view = undefined;
    const refused =
      isApplyError(result) || (typeof result === "object" && "Errors" in result && result.Errors !== null);
    // A refused atomic command leaves its clone behind: no table, index or watcher sees it.
    if (refused && handler.atomic) return result;
    this.#tables = tx.tables;
    this.watches.notify(tx.kvChanged, tx.channels);
    return result;
  }

  /**
   * Highest change to ACL tokens, policies, roles and namespaces: what a token's resolution depends on.
   * Read without taking a view, so checking a cached authorizer costs nothing after a KV write.
   */
  get aclIndex(): number {
    const i = this.#tables.indexes;
    return Math.max(i.aclTokens, i.aclPolicies, i.aclRoles, i.namespaces);
  }

  /** A consistent read view at the current index; O(1), shared until the next apply. */
  view(): StateView {
    this.#view ??= new StateView(this.#tables.clone(), this.#index, this.#memo);
    return this.#view;
  }

  /** Snapshot frames of the current state; applies may continue while they are consumed. */
  snapshot(): Generator<Uint8Array> {
    return this.view().snapshot();
  }

  /**
   * Replace the whole state with a snapshot (chunks of any size), then wake every blocking query. The
   * state sits at `atIndex` when given (a restore applied from the log), else at the snapshot's own index.
   */
  async restore(
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: RestoreOptions = {},
  ): Promise<void> {
    const reader = new SnapshotReader(options);
    for await (const chunk of chunks) reader.push(chunk);
    this.#install(reader, options.atIndex);
  }

  restoreSync(chunks: Iterable<Uint8Array>, options: RestoreOptions = {}): void {
    const reader = new SnapshotReader(options);
    for (const chunk of chunks) reader.push(chunk);
    this.#install(reader, options.atIndex);
  }

  #install(reader: SnapshotReader, atIndex: number | undefined): void {
    const { tables, index } = reader.finish();
    this.#tables = tables;
    this.#index = atIndex ?? index;
    this.#view = undefined;
    this.#memo = new ReadMemo();
    this.watches.wakeAll();
  }
}
