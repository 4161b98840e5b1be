// The KV protocol of Consul's lock and semaphore (api/lock.go, api/semaphore.go) as pure decisions over
// what a read returned, so `cairn lock` interoperates with `consul lock` and Consul's client libraries on
// the same prefix. No I/O here: the lockers in this folder do the reads and writes.
import { joinPath } from "../format.js";
import { field, isObject, parseJson } from "../json.js";
import type { KvEntry } from "../kv-api.js";

/** The key under the prefix that a lock holds, or that coordinates a semaphore's contenders. */
export const LOCK_KEY = ".lock";
/** Flags marking a key as a lock / a semaphore, so that a lock and a semaphore on one prefix conflict. */
export const LOCK_FLAGS = 0x2ddccbc058a50c18n;
export const SEMAPHORE_FLAGS = 0xe0f69a2baa414de0n;

export function lockKey(prefix: string): string {
  return joinPath(prefix, LOCK_KEY);
}

export type MutexView = "free" | "held" | "mine" | "conflict";

/** What a read of the lock key says about a single-holder lock, from `session`'s point of view. */
export function mutexView(entry: KvEntry | undefined, session: string): MutexView {
  if (entry === undefined) return "free";
  if (entry.flags !== LOCK_FLAGS) return "conflict";
  if (entry.session === "") return "free";
  return entry.session === session ? "mine" : "held";
}

export interface SemaphoreState {
  limit: number;
  holders: Set<string>;
}

/** The semaphore document `{"Limit": n, "Holders": {"<session>": true}}`; a missing key is a new one. */
export function decodeSemaphore(entry: KvEntry | undefined, limit: number): SemaphoreState {
  if (entry === undefined || entry.value.length === 0) return { limit, holders: new Set() };
  let doc: ReturnType<typeof parseJson>;
  try {
    doc = parseJson(entry.value.toString("utf8"));
  } catch (err) {
    throw new Error(`lock decoding failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(doc)) throw new Error("lock decoding failed: not a JSON object");
  const docLimit = field(doc, "Limit");
  const holders = field(doc, "Holders");
  const holderIds = isObject(holders) ? Object.keys(holders).filter((id) => holders[id] === true) : [];
  return { limit: typeof docLimit === "number" ? docLimit : 0, holders: new Set(holderIds) };
}

export function encodeSemaphore(state: SemaphoreState): Buffer {
  const holders: Record<string, boolean> = {};
  for (const id of [...state.holders].sort()) holders[id] = true;
  return Buffer.from(JSON.stringify({ Limit: state.limit, Holders: holders }));
}

/** Holders whose session no longer holds any key under the prefix are dead: their slot is free again. */
export function pruneDeadHolders(state: SemaphoreState, entries: readonly KvEntry[]): SemaphoreState {
  const alive = new Set(entries.map((e) => e.session).filter((s) => s !== ""));
  return { limit: state.limit, holders: new Set([...state.holders].filter((h) => alive.has(h))) };
}

export type SemaphorePlan =
  | { kind: "conflict"; reason: string }
  | { kind: "wait" }
  | { kind: "write"; value: Buffer; cas: bigint };

/** One acquisition step for `session`, given a list of the prefix: wait, conflict, or the cas write to try. */
export function planSemaphoreAcquire(
  prefix: string,
  session: string,
  limit: number,
  entries: readonly KvEntry[],
): SemaphorePlan {
  const lockEntry = entries.find((e) => e.key === lockKey(prefix));
  if (lockEntry !== undefined && lockEntry.flags !== SEMAPHORE_FLAGS) {
    return { kind: "conflict", reason: "Existing key does not match semaphore use" };
  }
  const state = pruneDeadHolders(decodeSemaphore(lockEntry, limit), entries);
  if (state.limit !== limit) {
    return { kind: "conflict", reason: `semaphore limit conflict (lock: ${state.limit}, local: ${limit})` };
  }
  if (state.holders.size >= state.limit) return { kind: "wait" };
  state.holders.add(session);
  return { kind: "write", value: encodeSemaphore(state), cas: lockEntry?.modifyIndex ?? 0n };
}

/** Whether `session` still has a slot, given a list of the prefix. */
export function holdsSlot(
  prefix: string,
  session: string,
  limit: number,
  entries: readonly KvEntry[],
): boolean {
  const lockEntry = entries.find((e) => e.key === lockKey(prefix));
  return pruneDeadHolders(decodeSemaphore(lockEntry, limit), entries).holders.has(session);
}

/** The cas write that gives up `session`'s slot, or undefined when it holds none. */
export function planSemaphoreRelease(
  lockEntry: KvEntry | undefined,
  session: string,
  limit: number,
): { value: Buffer; cas: bigint } | undefined {
  const state = decodeSemaphore(lockEntry, limit);
  if (!state.holders.delete(session)) return undefined;
  return { value: encodeSemaphore(state), cas: lockEntry?.modifyIndex ?? 0n };
}

export type CleanupPlan =
  | { kind: "nothing" }
  | { kind: "in-use" }
  | { kind: "conflict" }
  | { kind: "delete"; cas: bigint };

/** Whether the semaphore's coordination key can be deleted after the last holder left. */
export function planSemaphoreCleanup(
  prefix: string,
  limit: number,
  entries: readonly KvEntry[],
): CleanupPlan {
  const lockEntry = entries.find((e) => e.key === lockKey(prefix));
  if (lockEntry === undefined) return { kind: "nothing" };
  if (lockEntry.flags !== SEMAPHORE_FLAGS) return { kind: "conflict" };
  const state = pruneDeadHolders(decodeSemaphore(lockEntry, limit), entries);
  return state.holders.size > 0 ? { kind: "in-use" } : { kind: "delete", cas: lockEntry.modifyIndex };
}

/** Whether the lock key can be deleted after release. */
export function planMutexCleanup(entry: KvEntry | undefined): CleanupPlan {
  if (entry === undefined) return { kind: "nothing" };
  if (entry.flags !== LOCK_FLAGS) return { kind: "conflict" };
  return entry.session !== "" ? { kind: "in-use" } : { kind: "delete", cas: entry.modifyIndex };
}
