import type { TxnOp } from "@cairn/fsm";

const KV_READ_VERBS: ReadonlySet<string> = new Set([
  "get",
  "get-tree",
  "check-index",
  "check-session",
  "check-not-exists",
]);

/** True when the operation changes state; a transaction of only reads is served without the write path. */
export function isWriteOp(op: TxnOp): boolean {
  if ("KV" in op) return !KV_READ_VERBS.has(op.KV.Verb);
  return verbOf(op) !== "get";
}

function verbOf(op: Exclude<TxnOp, { KV: unknown }>): string {
  if ("Node" in op) return op.Node.Verb;
  if ("Service" in op) return op.Service.Verb;
  return op.Check.Verb;
}
