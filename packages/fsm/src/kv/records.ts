/**
 * A stored KV entry. The key lives only in the tree (as `ns \0 key`); the value is a latin1 "binary string"
 * (one char per byte) because V8 stores those compactly on the heap, about 100 bytes less per entry than a
 * Uint8Array view, and with no external backing store to track.
 */
export class KvRecord {
  constructor(
    readonly value: string,
    readonly flags: bigint,
    readonly createIndex: number,
    readonly modifyIndex: number,
    readonly lockIndex: number,
    readonly session: string | undefined,
  ) {}
}

/** A KV entry as reads return it. `Value` is null in transaction results of write verbs. */
export interface KVEntry {
  readonly Key: string;
  readonly Value: Uint8Array | null;
  /** Exact over 0..2^64-1; never a JS number. */
  readonly Flags: bigint;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly LockIndex: number;
  /** ID of the session holding the lock; absent when unlocked. */
  readonly Session?: string;
  readonly Namespace: string;
}
