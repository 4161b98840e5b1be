import type { Versioned } from "../commands/version.js";

export interface KVSetCommand extends Versioned {
  readonly type: "kv.set";
  readonly ns?: string;
  readonly key: string;
  readonly value: Uint8Array;
  readonly flags: bigint;
}

/** Set only if the key's ModifyIndex equals `index`; `index` 0 means "only if absent". */
export interface KVCasCommand extends Versioned {
  readonly type: "kv.cas";
  readonly ns?: string;
  readonly key: string;
  readonly value: Uint8Array;
  readonly flags: bigint;
  readonly index: number;
}

export interface KVDeleteCommand extends Versioned {
  readonly type: "kv.delete";
  readonly ns?: string;
  readonly key: string;
}

export interface KVDeleteTreeCommand extends Versioned {
  readonly type: "kv.delete-tree";
  readonly ns?: string;
  readonly prefix: string;
}

export interface KVDeleteCasCommand extends Versioned {
  readonly type: "kv.delete-cas";
  readonly ns?: string;
  readonly key: string;
  readonly index: number;
}

/** Acquire; refused (false) while the key's lock-delay is later than `now`. */
export interface KVLockCommand extends Versioned {
  readonly type: "kv.lock";
  readonly ns?: string;
  readonly key: string;
  readonly value: Uint8Array;
  readonly flags: bigint;
  readonly session: string;
  readonly now: number;
}

export interface KVUnlockCommand extends Versioned {
  readonly type: "kv.unlock";
  readonly ns?: string;
  readonly key: string;
  readonly value: Uint8Array;
  readonly flags: bigint;
  readonly session: string;
}

/** Drops KV tombstones whose index is at most `index` (issued by the leader's tombstone GC). */
export interface TombstoneReapCommand extends Versioned {
  readonly type: "tombstone.reap";
  readonly index: number;
}

export type KvCommand =
  | KVSetCommand
  | KVCasCommand
  | KVDeleteCommand
  | KVDeleteTreeCommand
  | KVDeleteCasCommand
  | KVLockCommand
  | KVUnlockCommand
  | TombstoneReapCommand;
