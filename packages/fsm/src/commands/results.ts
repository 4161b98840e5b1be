import type { CatalogNode, HealthCheck, KVEntry, NodeService } from "../types.js";

/**
 * A command the state machine refused as a whole. Nothing changed. `status` is the HTTP status the API
 * should answer with; `error` is Consul's one-line message.
 */
export interface ApplyError {
  readonly error: string;
  readonly status: 400 | 404 | 409 | 413 | 500;
}

export type TxnResult =
  | { readonly KV: KVEntry }
  | { readonly Node: CatalogNode }
  | { readonly Service: NodeService }
  | { readonly Check: HealthCheck };

export interface TxnError {
  readonly OpIndex: number;
  readonly What: string;
}

/** Errors non-null means rolled back (HTTP 409) and Results is null. */
export interface TxnResponse {
  readonly Results: readonly TxnResult[] | null;
  readonly Errors: readonly TxnError[] | null;
}

export interface SessionCreated {
  readonly ID: string;
}

/**
 * What `StateStore.apply` returns, by command type:
 * kv.* -> boolean (or ApplyError for a lock naming an unknown session); session.create -> SessionCreated;
 * session.destroy/invalidate -> true; txn -> TxnResponse (ApplyError for limit violations);
 * catalog.* -> true or ApplyError; coordinate.batch-update, tombstone.reap -> true.
 */
export type ApplyResult = boolean | SessionCreated | TxnResponse | ApplyError;

export function applyError(error: string, status: ApplyError["status"] = 400): ApplyError {
  return { error, status };
}

export function isApplyError(result: ApplyResult): result is ApplyError {
  return typeof result === "object" && "error" in result;
}
