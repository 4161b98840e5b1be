import type { CatalogNode, HealthCheck, NodeService } from "../catalog/records.js";
import type { KVEntry } from "../kv/records.js";

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
