import { joinKey, prefixEnd, SEP } from "../store/keys.js";
import type { Tables } from "../store/tables.js";
import type { Tx } from "../store/tx.js";
import { type KvRecord, kvModifyIndex, packKv, repackKv, unpackKv } from "./records.js";

/** KV writes on a Tx, with Consul's state-store semantics. Keys here are composite (`ns \0 key`). */

/** A key changed: its watchers wake and the KV table index moves. */
function changed(tx: Tx, ck: string): void {
  tx.changedKv(ck);
  tx.tables.indexes.kvs = tx.index;
}

/** Stores an entry and keeps the session index in step with who holds it. */
function put(
  tx: Tx,
  ck: string,
  record: KvRecord,
  session: string | undefined,
  previous: string | undefined,
): void {
  const t = tx.tables;
  t.kv.set(ck, record);
  if (previous !== session) {
    if (previous) t.kvBySession.delete(joinKey(previous, ck));
    if (session) t.kvBySession.set(joinKey(session, ck), true);
  }
  changed(tx, ck);
}

/** Plain set: keeps CreateIndex, LockIndex and the holding session of an existing entry. */
export function kvSet(tx: Tx, ck: string, value: Uint8Array, flags: bigint): void {
  // Hot path: replace an existing entry in one descent of the tree (its session, hence kvBySession, stays).
  let replaced = false;
  tx.tables.kv.editRange(ck, ck, true, (_, existing) => {
    replaced = true;
    const old = unpackKv(existing);
    return { value: packKv(value, { ...old, flags, modifyIndex: tx.index }) };
  });
  if (replaced) changed(tx, ck);
  else {
    const meta = { flags, createIndex: tx.index, modifyIndex: tx.index, lockIndex: 0, session: undefined };
    put(tx, ck, packKv(value, meta), undefined, undefined);
  }
}

/** index 0: only if absent; otherwise only if the ModifyIndex matches. */
export function kvCas(tx: Tx, ck: string, value: Uint8Array, flags: bigint, index: number): boolean {
  const existing = tx.tables.kv.get(ck);
  if (index === 0 ? existing !== undefined : existing === undefined || kvModifyIndex(existing) !== index)
    return false;
  kvSet(tx, ck, value, flags);
  return true;
}

export function kvDelete(tx: Tx, ck: string): void {
  const t = tx.tables;
  const existing = t.kv.get(ck);
  if (!existing) return;
  t.kv.delete(ck);
  const { session } = unpackKv(existing);
  if (session) t.kvBySession.delete(joinKey(session, ck));
  t.tombstones.set(ck, tx.index);
  changed(tx, ck);
}

/** A missing key counts as deleted (true); a ModifyIndex mismatch refuses (false). */
export function kvDeleteCas(tx: Tx, ck: string, index: number): boolean {
  const existing = tx.tables.kv.get(ck);
  if (!existing) return true;
  if (kvModifyIndex(existing) !== index) return false;
  kvDelete(tx, ck);
  return true;
}

/** Every deleted key gets its own tombstone so a read of any prefix of it keeps a never-decreasing index. */
export function kvDeleteTree(tx: Tx, cprefix: string): void {
  const doomed: string[] = [];
  tx.tables.kv.forRange(cprefix, prefixEnd(cprefix), false, (k) => {
    doomed.push(k);
  });
  for (const ck of doomed) kvDelete(tx, ck);
}

export type LockOutcome = "locked" | "held-by-other" | "lock-delay" | "invalid-session";

export function kvLock(
  tx: Tx,
  ck: string,
  value: Uint8Array,
  flags: bigint,
  session: string,
  now: number,
): LockOutcome {
  const t = tx.tables;
  const delayUntil = t.lockDelays.get(ck);
  if (delayUntil !== undefined && delayUntil > now) return "lock-delay";
  if (!session || !t.sessions.has(session)) return "invalid-session";
  const stored = t.kv.get(ck);
  const existing = stored === undefined ? undefined : unpackKv(stored);
  if (existing?.session && existing.session !== session) return "held-by-other";
  const lockIndex = existing
    ? existing.session === session
      ? existing.lockIndex
      : existing.lockIndex + 1
    : 1;
  const createIndex = existing?.createIndex ?? tx.index;
  const meta = { flags, createIndex, modifyIndex: tx.index, lockIndex, session };
  put(tx, ck, packKv(value, meta), session, existing?.session);
  return "locked";
}

/** False unless `session` holds the key. */
export function kvUnlock(tx: Tx, ck: string, value: Uint8Array, flags: bigint, session: string): boolean {
  const stored = tx.tables.kv.get(ck);
  if (!stored || !session) return false;
  const existing = unpackKv(stored);
  if (existing.session !== session) return false;
  const meta = { ...existing, flags, modifyIndex: tx.index, session: undefined };
  put(tx, ck, packKv(value, meta), undefined, session);
  return true;
}

/**
 * A session holding the key ended: the key is released (Behavior release) or deleted (Behavior delete) and
 * refuses acquires until `delayUntil` when that is later than `now`.
 */
export function kvEndSessionLock(
  tx: Tx,
  ck: string,
  session: string,
  behavior: "release" | "delete",
  delayUntil: number | undefined,
): void {
  const t = tx.tables;
  t.kvBySession.delete(joinKey(session, ck));
  if (delayUntil !== undefined) t.lockDelays.set(ck, delayUntil);
  const existing = t.kv.get(ck);
  if (!existing) return;
  if (behavior === "delete") {
    kvDelete(tx, ck);
    return;
  }
  t.kv.set(ck, repackKv(existing, { ...unpackKv(existing), modifyIndex: tx.index, session: undefined }));
  changed(tx, ck);
}

/** Expired lock-delays carry no meaning; dropping them at a command's `now` keeps the table small. */
export function pruneLockDelays(t: Tables, now: number): void {
  const expired: string[] = [];
  t.lockDelays.forEach((until, ck) => {
    if (until <= now) expired.push(ck);
  });
  for (const ck of expired) t.lockDelays.delete(ck);
}

/** Rebuilds the index of the keys each session holds from the KV table. */
export function rebuildKvIndexes(t: Tables): void {
  t.kv.forEach((r, ck) => {
    const { session } = unpackKv(r);
    if (session) t.kvBySession.set(joinKey(session, ck), true);
  });
}

/** Keys (composite) held by a session. */
export function keysHeldBy(t: Tables, session: string): string[] {
  const prefix = session + SEP;
  const out: string[] = [];
  t.kvBySession.forRange(prefix, prefixEnd(prefix), false, (k) => {
    out.push(k.slice(prefix.length));
  });
  return out;
}
