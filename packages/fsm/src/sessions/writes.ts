import { DurationError, parseDurationNs } from "@cairn/duration";
import { keysHeldBy, kvEndSessionLock, pruneLockDelays } from "../kv/writes.js";
import { deleteSessionQueries } from "../queries/writes.js";
import { DEFAULT_NAMESPACE, joinKey, prefixEnd, SEP } from "../store/keys.js";
import type { Tables } from "../store/tables.js";
import type { Tx } from "../store/tx.js";
import type { SessionSpec } from "./commands.js";
import type { Session } from "./records.js";
import { sessionsChannel } from "./tables.js";

export const SESSION_TTL_MIN_NS = 10e9;
export const SESSION_TTL_MAX_NS = 86_400e9;
export const DEFAULT_LOCK_DELAY_NS = 15e9;
/** Consul caps lock-delay at 60s. */
export const MAX_LOCK_DELAY_NS = 60e9;

/** Returns Consul's error text, or the stored session. */
export function sessionCreate(tx: Tx, spec: SessionSpec, ttlMinNs = SESSION_TTL_MIN_NS): string | Session {
  const t = tx.tables;
  const behavior = spec.Behavior ?? "release";
  if (behavior !== "release" && behavior !== "delete") return `Invalid session behavior: ${String(behavior)}`;
  const ttl = spec.TTL ?? "";
  if (ttl !== "") {
    const ns = ttlNs(ttl);
    if (ns === undefined) return `Session TTL '${ttl}' is not a valid duration`;
    if (ns !== 0 && (ns < ttlMinNs || ns > SESSION_TTL_MAX_NS)) {
      return `Invalid Session TTL '${ttl}', must be between [${ttlMinNs / 1e9}s=24h0m0s]`;
    }
  }
  const lockDelay = spec.LockDelay ?? DEFAULT_LOCK_DELAY_NS;
  if (lockDelay < 0) return "LockDelay must not be negative";
  if (!spec.ID) return "Missing session ID";
  if (t.sessions.has(spec.ID)) return `Session ID "${spec.ID}" is already in use`;
  if (!t.nodes.has(spec.Node)) return `Missing node registration`;
  const sessionNs = spec.Namespace ?? DEFAULT_NAMESPACE;
  const legacy = unique(spec.Checks ?? []);
  const nodeChecks = unique(spec.NodeChecks ?? []);
  // Consul's open-source edition writes the default namespace of a service check as "".
  const serviceChecks = (spec.ServiceChecks ?? []).map((c) => {
    const ns = c.Namespace || sessionNs;
    return { ID: c.ID, Namespace: ns === DEFAULT_NAMESPACE ? "" : ns };
  });
  const draft = {
    Namespace: sessionNs,
    NodeChecks: nodeChecks,
    Checks: legacy,
    ServiceChecks: serviceChecks,
  };
  for (const ref of checkRefs(draft)) {
    const check = findSessionCheck(t, spec.Node, ref);
    if (!check) return `Missing check '${ref.id}' registration`;
    if (check.Status === "critical") return `Check '${ref.id}' is in critical state`;
  }
  const session: Session = {
    ID: spec.ID,
    Name: spec.Name ?? "",
    Node: spec.Node,
    LockDelay: Math.min(lockDelay, MAX_LOCK_DELAY_NS),
    Behavior: behavior,
    TTL: ttl,
    NodeChecks: nodeChecks,
    ServiceChecks: serviceChecks.length > 0 ? serviceChecks : null,
    ...(legacy.length > 0 ? { Checks: legacy } : {}),
    Namespace: sessionNs,
    CreateIndex: tx.index,
    ModifyIndex: tx.index,
  };
  t.sessions.set(session.ID, session);
  indexSession(t, session);
  sessionsChanged(tx);
  return session;
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** A check a session depends on: by ID in `ns`, or (node-level) in `ns` then the default namespace. */
interface CheckRef {
  readonly id: string;
  readonly ns: string;
  readonly nodeLevel: boolean;
}

type SessionChecks = Pick<Session, "Namespace" | "Checks" | "NodeChecks" | "ServiceChecks">;

/**
 * Every check a session names. `Checks` (pre-1.7) and `NodeChecks` are node-level checks, found as before
 * 1.7 by ID; `ServiceChecks` carry their own namespace. Records written before NodeChecks existed have
 * only `Checks`.
 */
function checkRefs(s: SessionChecks): CheckRef[] {
  const byId = [...(s.Checks ?? []), ...(s.NodeChecks ?? [])];
  const refs: CheckRef[] = byId.map((id) => ({ id, ns: s.Namespace, nodeLevel: true }));
  for (const c of s.ServiceChecks ?? []) {
    refs.push({ id: c.ID, ns: c.Namespace || DEFAULT_NAMESPACE, nodeLevel: false });
  }
  return refs;
}

/**
 * Nodes are not namespaced: node-level checks (serfHealth) live in the default namespace, service checks in
 * their service's. A node-level reference found in the session's own namespace wins, else a node-level
 * check of the default namespace.
 */
function findSessionCheck(t: Tables, node: string, ref: CheckRef) {
  const own = t.checks.get(joinKey(node, ref.ns, ref.id));
  if (own || !ref.nodeLevel || ref.ns === DEFAULT_NAMESPACE) return own;
  const nodeCheck = t.checks.get(joinKey(node, DEFAULT_NAMESPACE, ref.id));
  return nodeCheck?.ServiceID === "" ? nodeCheck : undefined;
}

/**
 * The check-index keys of a session: each check under its namespace and, for node-level references outside
 * the default namespace, under the default namespace too, so a node-level check going critical or away
 * reaches sessions of every namespace. Keyed from the session alone (not from which check matched) so a
 * snapshot restore rebuilds the same keys.
 */
function sessionCheckKeys(s: Session): string[] {
  const keys = new Set<string>();
  for (const ref of checkRefs(s)) {
    keys.add(joinKey(s.Node, ref.ns, ref.id, s.ID));
    if (ref.nodeLevel && ref.ns !== DEFAULT_NAMESPACE)
      keys.add(joinKey(s.Node, DEFAULT_NAMESPACE, ref.id, s.ID));
  }
  return [...keys];
}

/** Adds a session to the by-node and by-check indexes (also used by the snapshot restore). */
export function indexSession(t: Tables, s: Session): void {
  t.sessionsByNode.set(joinKey(s.Node, s.ID), true);
  for (const key of sessionCheckKeys(s)) t.sessionsByCheck.set(key, true);
}

function sessionsChanged(tx: Tx): void {
  tx.tables.indexes.sessions = tx.index;
  tx.touch(sessionsChannel);
}

/**
 * Destroy or invalidate (only within `ns` when given): drop the session, then per its Behavior release or delete every key it holds; each
 * such key refuses acquires until `now + LockDelay`. Missing sessions are a no-op.
 */
export function sessionInvalidate(tx: Tx, id: string, now: number, ns?: string): void {
  const t = tx.tables;
  const session = t.sessions.get(id);
  if (!session || (ns !== undefined && ns !== session.Namespace)) return;
  t.sessions.delete(id);
  t.sessionsByNode.delete(joinKey(session.Node, id));
  for (const key of sessionCheckKeys(session)) t.sessionsByCheck.delete(key);
  sessionsChanged(tx);
  deleteSessionQueries(tx, id);

  const held = keysHeldBy(t, id);
  if (held.length === 0) return;
  pruneLockDelays(t, now);
  const delayMs = session.LockDelay / 1e6;
  const delayUntil = delayMs > 0 ? now + delayMs : undefined;
  for (const ck of held) kvEndSessionLock(tx, ck, id, session.Behavior, delayUntil);
}

function idsUnder(tree: Tables["sessionsByNode"], prefix: string): string[] {
  const out: string[] = [];
  tree.forRange(prefix, prefixEnd(prefix), false, (k) => {
    out.push(k.slice(k.lastIndexOf(SEP) + 1));
  });
  return out;
}

export function sessionIdsOnNode(t: Tables, node: string): string[] {
  return idsUnder(t.sessionsByNode, node + SEP);
}

/** The catalog's way in: a node went away, so the sessions on it end. */
export function invalidateNodeSessions(tx: Tx, node: string, now: number): void {
  for (const id of sessionIdsOnNode(tx.tables, node)) sessionInvalidate(tx, id, now);
}

/** The catalog's way in: a check went critical or away, so the sessions naming it end. */
export function invalidateCheckSessions(
  tx: Tx,
  node: string,
  ns: string,
  checkID: string,
  now: number,
): void {
  const ids = idsUnder(tx.tables.sessionsByCheck, joinKey(node, ns, checkID) + SEP);
  for (const id of ids) sessionInvalidate(tx, id, now);
}

/** A session TTL in nanoseconds (a double: exact to the nanosecond up to ~104 days), or undefined. */
function ttlNs(ttl: string): number | undefined {
  try {
    return Number(parseDurationNs(ttl));
  } catch (err) {
    if (err instanceof DurationError) return undefined;
    throw err;
  }
}
