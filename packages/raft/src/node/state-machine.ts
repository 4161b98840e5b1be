/** Where a state machine writes its snapshot; each write resolves once the chunk is in the file. */
export interface SnapshotOutput {
  write(chunk: Uint8Array): Promise<void>;
}

/**
 * The replicated state machine the driver applies committed entries to. It lives in memory: at start the
 * driver restores it from the latest snapshot and replays the log after it, so each index is applied exactly
 * once per process, in order.
 */
export interface StateMachine<R = unknown> {
  /**
   * Applies the command committed at `index` and returns its result (handed to the proposer). Must be
   * deterministic. A throw is delivered to the proposer as the result; the state must then be unchanged.
   */
  apply(index: number, data: Uint8Array): R;
  /**
   * Writes the state as of this call: capture it synchronously (before the first await), because entries
   * keep being applied while the snapshot is written.
   */
  snapshot(out: SnapshotOutput): Promise<void>;
  /** Replaces the whole state with the snapshot in `file`. */
  restore(file: string): Promise<void>;
}
