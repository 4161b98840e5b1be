import { CATALOG_VERBS, KV_VERBS, type KVVerb } from "@cairn/fsm";
import type { TxnOpInput } from "../schemas/txn.js";

/** Which optional KV fields each verb requires (spec 2, transaction verb table). */
const KV_REQUIRES: Record<KVVerb, { value?: true; index?: true; session?: true; tree?: true }> = {
  set: { value: true },
  cas: { value: true, index: true },
  lock: { value: true, session: true },
  unlock: { value: true, session: true },
  get: {},
  "get-tree": { tree: true },
  "check-index": { index: true },
  "check-session": { session: true },
  "check-not-exists": {},
  delete: {},
  "delete-tree": { tree: true },
  "delete-cas": { index: true },
};

const HEALTH_STATUSES: ReadonlySet<string> = new Set(["passing", "warning", "critical", ""]);

const isKvVerb = (v: string): v is KVVerb => (KV_VERBS as readonly string[]).includes(v);
const isCatalogVerb = (v: string) => (CATALOG_VERBS as readonly string[]).includes(v);

/**
 * What is wrong with one decoded operation, in Consul's words where Consul has them, or undefined. As in
 * Consul these are reported per operation (409 with Errors by OpIndex), never as a 400 for the request.
 */
export function txnOpProblem(op: TxnOpInput): string | undefined {
  const kinds = [op.KV, op.Node, op.Service, op.Check].filter((x) => x !== undefined && x !== null);
  if (kinds.length !== 1) return "each operation needs exactly one of KV, Node, Service or Check";
  if (op.KV) return kvProblem(op.KV);
  if (op.Node) {
    if (!isCatalogVerb(op.Node.Verb ?? "")) return `unknown Node verb "${op.Node.Verb ?? ""}"`;
    return op.Node.Node?.Node || op.Node.Node?.ID ? undefined : "Must provide node";
  }
  if (op.Service) {
    if (!isCatalogVerb(op.Service.Verb ?? "")) return `unknown Service verb "${op.Service.Verb ?? ""}"`;
    if (!op.Service.Node) return "Must provide node";
    return op.Service.Service?.Service || op.Service.Service?.ID ? undefined : "Must provide service name";
  }
  const check = op.Check!;
  if (!isCatalogVerb(check.Verb ?? "")) return `unknown Check verb "${check.Verb ?? ""}"`;
  if (!check.Check?.Node) return "Must provide node";
  if (!check.Check.CheckID && !check.Check.Name) return "Must provide check ID";
  const status = check.Check.Status ?? "";
  return HEALTH_STATUSES.has(status) ? undefined : `Invalid check status "${status}"`;
}

function kvProblem(kv: NonNullable<TxnOpInput["KV"]>): string | undefined {
  const verb = kv.Verb ?? "";
  if (!isKvVerb(verb)) return `unknown KV verb "${verb}"`;
  const needs = KV_REQUIRES[verb];
  if (!kv.Key && !needs.tree) return "Must provide key";
  if (needs.session && !kv.Session) return "missing session";
  if (needs.value && kv.Value === undefined) return `missing Value for verb "${verb}"`;
  if (needs.index && kv.Index === undefined) return `missing Index for verb "${verb}"`;
  return undefined;
}
