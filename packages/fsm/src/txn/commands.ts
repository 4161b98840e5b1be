import type { CheckSpec, NodeSpec, ServiceSpec } from "../catalog/commands.js";
import type { Versioned } from "../commands/version.js";

/** The KV verbs of a transaction (spec 2's verb table), shared by the command decoder and the HTTP schema. */
export const KV_VERBS = [
  "set",
  "cas",
  "lock",
  "unlock",
  "get",
  "get-tree",
  "check-index",
  "check-session",
  "check-not-exists",
  "delete",
  "delete-tree",
  "delete-cas",
] as const;
export type KVVerb = (typeof KV_VERBS)[number];

/** The Node, Service and Check verbs of a transaction. */
export const CATALOG_VERBS = ["set", "cas", "get", "delete", "delete-cas"] as const;
export type CatalogVerb = (typeof CATALOG_VERBS)[number];

export interface TxnKVOp {
  readonly Verb: KVVerb;
  readonly Key: string;
  readonly Value?: Uint8Array;
  readonly Flags?: bigint;
  readonly Index?: number;
  readonly Session?: string;
  readonly Namespace?: string;
}

export interface TxnNodeOp {
  readonly Verb: CatalogVerb;
  readonly Node: NodeSpec;
}

export interface TxnServiceOp {
  readonly Verb: CatalogVerb;
  readonly Node: string;
  readonly Service: ServiceSpec;
}

export interface TxnCheckOp {
  readonly Verb: CatalogVerb;
  readonly Check: CheckSpec & { readonly Node: string };
}

export type TxnOp =
  | { readonly KV: TxnKVOp }
  | { readonly Node: TxnNodeOp }
  | { readonly Service: TxnServiceOp }
  | { readonly Check: TxnCheckOp };

export interface TxnCommand extends Versioned {
  readonly type: "txn";
  readonly ops: readonly TxnOp[];
  readonly now: number;
}
