import {
  checkID,
  deleteCheck,
  deleteCheckCas,
  deleteNode,
  deleteNodeCas,
  deleteService,
  deleteServiceCas,
  ensureCheck,
  ensureCheckCas,
  ensureNode,
  ensureNodeCas,
  ensureService,
  ensureServiceCas,
  findNode,
  getCheck,
  getService,
} from "../catalog/writes.js";
import { toKVEntry } from "../kv/reads.js";
import { kvModifyIndex, unpackKv } from "../kv/records.js";
import { kvCas, kvDelete, kvDeleteCas, kvDeleteTree, kvLock, kvSet, kvUnlock } from "../kv/writes.js";
import { namespaceProblem } from "../namespaces/problem.js";
import { DEFAULT_NAMESPACE, joinKey, prefixEnd } from "../store/keys.js";
import type { Tx } from "../store/tx.js";
import type { TxnCheckOp, TxnKVOp, TxnNodeOp, TxnOp, TxnServiceOp } from "./commands.js";
import type { TxnError, TxnResponse, TxnResult } from "./results.js";

export const MAX_TXN_OPS = 64;
export const MAX_TXN_VALUE_BYTES = 512 * 1024;

type OpOutcome = readonly TxnResult[] | string;

/**
 * Runs every operation in order against the Tx, collecting results and Consul-worded errors. The caller
 * keeps the writes only when no operation failed.
 */
export function runTxn(tx: Tx, ops: readonly TxnOp[], now: number): TxnResponse {
  const results: TxnResult[] = [];
  const errors: TxnError[] = [];
  ops.forEach((op, OpIndex) => {
    const problem = storesNothing(op) ? undefined : namespaceProblem(tx.tables, opNamespace(op));
    const outcome = problem
      ? problem
      : "KV" in op
        ? kvOp(tx, op.KV, now)
        : "Node" in op
          ? nodeOp(tx, op.Node, now)
          : "Service" in op
            ? serviceOp(tx, op.Service, now)
            : "Check" in op
              ? checkOp(tx, op.Check, now)
              : "unknown operation";
    if (typeof outcome === "string") errors.push({ OpIndex, What: outcome });
    else results.push(...outcome);
  });
  return errors.length > 0 ? { Results: null, Errors: errors } : { Results: results, Errors: null };
}

const EMPTY = new Uint8Array(0);

function kvOp(tx: Tx, op: TxnKVOp, now: number): OpOutcome {
  const t = tx.tables;
  const ck = joinKey(op.Namespace ?? DEFAULT_NAMESPACE, op.Key);
  const value = () => op.Value ?? EMPTY;
  const flags = op.Flags ?? 0n;
  const stored = (withValue: boolean): OpOutcome => {
    const r = t.kv.get(ck);
    return r ? [{ KV: toKVEntry(ck, r, withValue) }] : [];
  };
  switch (op.Verb) {
    case "set":
      kvSet(tx, ck, value(), flags);
      return stored(false);
    case "cas":
      return kvCas(tx, ck, value(), flags, op.Index ?? 0)
        ? stored(false)
        : `failed to set key "${op.Key}", index is stale`;
    case "lock": {
      if (!op.Session) return "missing session";
      const outcome = kvLock(tx, ck, value(), flags, op.Session ?? "", now);
      if (outcome === "invalid-session") return `invalid session "${op.Session ?? ""}"`;
      if (outcome === "lock-delay") return `failed to lock key "${op.Key}", lock-delay has not expired`;
      return outcome === "locked" ? stored(false) : `failed to lock key "${op.Key}", lock is already held`;
    }
    case "unlock":
      if (!op.Session) return "missing session";
      return kvUnlock(tx, ck, value(), flags, op.Session ?? "")
        ? stored(false)
        : `failed to unlock key "${op.Key}", lock isn't held, or is held by another session`;
    case "get":
      return t.kv.has(ck) ? stored(true) : `key "${op.Key}" doesn't exist`;
    case "get-tree": {
      const out: TxnResult[] = [];
      t.kv.forRange(ck, prefixEnd(ck), false, (k, r) => {
        out.push({ KV: toKVEntry(k, r, true) });
      });
      return out;
    }
    case "check-index": {
      const r = t.kv.get(ck);
      if (!r) return `failed to check index, key "${op.Key}" doesn't exist`;
      const modifyIndex = kvModifyIndex(r);
      return modifyIndex === (op.Index ?? 0)
        ? stored(false)
        : `failed index check for key "${op.Key}", current modify index ${modifyIndex} != ${op.Index ?? 0}`;
    }
    case "check-session": {
      const r = t.kv.get(ck);
      if (!r) return `failed to check session, key "${op.Key}" doesn't exist`;
      const { session } = unpackKv(r);
      return session === (op.Session || undefined)
        ? stored(false)
        : `failed session check for key "${op.Key}", current session "${session ?? ""}" != "${op.Session ?? ""}"`;
    }
    case "check-not-exists":
      return t.kv.has(ck) ? `key "${op.Key}" exists` : [];
    case "delete":
      kvDelete(tx, ck);
      return [];
    case "delete-tree":
      kvDeleteTree(tx, ck);
      return [];
    case "delete-cas":
      return kvDeleteCas(tx, ck, op.Index ?? 0) ? [] : `failed to delete key "${op.Key}", index is stale`;
  }
}

function nodeOp(tx: Tx, op: TxnNodeOp, now: number): OpOutcome {
  const t = tx.tables;
  const name = op.Node.Node;
  const current = (): OpOutcome => {
    const n = findNode(t, op.Node);
    return n ? [{ Node: n }] : `node "${name}" doesn't exist`;
  };
  switch (op.Verb) {
    case "get":
      return current();
    case "set":
      return ensureNode(tx, op.Node) ?? current();
    case "cas": {
      const ok = ensureNodeCas(tx, op.Node);
      if (typeof ok === "string") return ok;
      return ok ? current() : `failed to set node "${name}", index is stale`;
    }
    case "delete":
      deleteNode(tx, findNode(t, op.Node)?.Node ?? name, now);
      return [];
    case "delete-cas":
      return deleteNodeCas(tx, findNode(t, op.Node)?.Node ?? name, op.Node.ModifyIndex ?? 0, now)
        ? []
        : `failed to delete node "${name}", index is stale`;
  }
}

function serviceOp(tx: Tx, op: TxnServiceOp, now: number): OpOutcome {
  const ns = op.Service.Namespace ?? DEFAULT_NAMESPACE;
  const id = op.Service.ID || op.Service.Service;
  const current = (): OpOutcome => {
    const s = getService(tx.tables, op.Node, ns, id);
    return s ? [{ Service: s }] : `service "${id}" on node "${op.Node}" doesn't exist`;
  };
  switch (op.Verb) {
    case "get":
      return current();
    case "set":
      return ensureService(tx, op.Node, op.Service) ?? current();
    case "cas": {
      const ok = ensureServiceCas(tx, op.Node, op.Service);
      if (typeof ok === "string") return ok;
      return ok ? current() : `failed to set service "${id}" on node "${op.Node}", index is stale`;
    }
    case "delete":
      deleteService(tx, op.Node, ns, id, now);
      return [];
    case "delete-cas":
      return deleteServiceCas(tx, op.Node, ns, id, op.Service.ModifyIndex ?? 0, now)
        ? []
        : `failed to delete service "${id}" on node "${op.Node}", index is stale`;
  }
}

function checkOp(tx: Tx, op: TxnCheckOp, now: number): OpOutcome {
  const node = op.Check.Node;
  const ns = op.Check.Namespace ?? DEFAULT_NAMESPACE;
  const id = checkID(op.Check);
  const current = (): OpOutcome => {
    const c = getCheck(tx.tables, node, ns, id);
    return c ? [{ Check: c }] : `check "${id}" on node "${node}" doesn't exist`;
  };
  switch (op.Verb) {
    case "get":
      return current();
    case "set":
      return ensureCheck(tx, node, op.Check, now) ?? current();
    case "cas": {
      const ok = ensureCheckCas(tx, node, op.Check, now);
      if (typeof ok === "string") return ok;
      return ok ? current() : `failed to set check "${id}" on node "${node}", index is stale`;
    }
    case "delete":
      deleteCheck(tx, node, ns, id, now);
      return [];
    case "delete-cas":
      return deleteCheckCas(tx, node, ns, id, op.Check.ModifyIndex ?? 0, now)
        ? []
        : `failed to delete check "${id}" on node "${node}", index is stale`;
  }
}

function opNamespace(op: TxnOp): string | undefined {
  if ("KV" in op) return op.KV.Namespace;
  if ("Service" in op) return op.Service.Service.Namespace;
  if ("Check" in op) return op.Check.Check.Namespace;
  return undefined;
}

function opVerb(op: TxnOp): string {
  if ("KV" in op) return op.KV.Verb;
  if ("Node" in op) return op.Node.Verb;
  if ("Service" in op) return op.Service.Verb;
  return op.Check.Verb;
}

/** Reads and deletes store nothing: they may name any namespace, as far as this guard goes. */
function storesNothing(op: TxnOp): boolean {
  const verb = opVerb(op);
  return verb === "get" || verb === "get-tree" || verb.startsWith("check-") || verb.startsWith("delete");
}

/** Limits checked before anything runs (HTTP 413). */
export function txnLimitError(ops: readonly TxnOp[]): string | undefined {
  if (ops.length > MAX_TXN_OPS)
    return `Transaction contains too many operations (${ops.length} > ${MAX_TXN_OPS})`;
  for (const op of ops) {
    if ("KV" in op && (op.KV.Value?.byteLength ?? 0) > MAX_TXN_VALUE_BYTES) {
      return `Value for key "${op.KV.Key}" is too large (${op.KV.Value?.byteLength} > ${MAX_TXN_VALUE_BYTES} bytes)`;
    }
  }
  return undefined;
}

/** True when the transaction has no write operation (it can be served from a read view). */
export function isReadOnlyTxn(ops: readonly TxnOp[]): boolean {
  return ops.every((op) => {
    const verb = opVerb(op);
    return verb === "get" || verb === "get-tree" || verb.startsWith("check-");
  });
}
