import type { TxnError, TxnOp } from "@cairn/fsm";
import { JsonSyntaxError, readJson } from "@cairn/json";
import { badRequest, tooLarge } from "../http/errors.js";
import { printable } from "../http/query.js";
import { goBody } from "../json/canonical-keys.js";
import { toTxnOp, txnBodySchema } from "../schemas/txn.js";
import { txnOpProblem } from "./problems.js";
import { isWriteOp } from "./verbs.js";

export const MAX_TXN_OPS = 64;

export interface DecodedTxn {
  /** Undefined where the operation has a problem. */
  ops: (TxnOp | undefined)[];
  /** Per-operation problems, by OpIndex: the transaction is answered 409 with these and not applied. */
  problems: TxnError[];
  /** Zero means read-only: served from the local store under the read consistency rules. */
  writes: number;
}

export interface TxnDefaults {
  maxKVValueBytes: number;
  /** Fills an empty node Datacenter. */
  datacenter: string;
  /** The request's namespace: fills an empty KV Namespace. */
  namespace: string;
}

/**
 * Turns a /v1/txn body into state-machine operations and per-operation problems, or throws a 400/413
 * HttpError with a one-line reason when the body as a whole is unusable (not JSON of the right types, too
 * many operations, a value over the limit), as Consul's HTTP handler does. Pure: no I/O, safe on any
 * input (fuzzed).
 */
export function decodeTxn(text: string, limits: TxnDefaults): DecodedTxn {
  let raw: ReturnType<typeof readJson>;
  try {
    raw = readJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw badRequest(`Failed to parse body: ${err.message}`);
    throw err;
  }
  if (Array.isArray(raw) && raw.length > MAX_TXN_OPS) {
    throw tooLarge(`Transaction contains too many operations (${raw.length} > ${MAX_TXN_OPS})`);
  }
  const parsed = txnBodySchema.safeParse(goBody(txnBodySchema, raw));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `operation ${issue.path.map(String).join(".")}: ` : "";
    throw badRequest(
      `Failed to parse body: ${where}${(issue?.message ?? "invalid").replace(/[\r\n]+/g, " ")}`,
    );
  }

  const ops: (TxnOp | undefined)[] = [];
  const problems: TxnError[] = [];
  let writes = 0;
  for (const [OpIndex, op] of parsed.data.entries()) {
    const size = op.KV?.Value?.byteLength ?? 0;
    if (op.KV && size > limits.maxKVValueBytes) {
      throw tooLarge(
        `Value for key "${printable(op.KV.Key ?? "")}" is too large (${size} > ${limits.maxKVValueBytes} bytes)`,
      );
    }
    const problem = txnOpProblem(op);
    if (problem !== undefined) {
      problems.push({ OpIndex, What: problem });
      ops.push(undefined);
      continue;
    }
    const converted = toTxnOp(op, limits.datacenter, limits.namespace);
    if (isWriteOp(converted)) writes++;
    ops.push(converted);
  }
  return { ops, problems, writes };
}
