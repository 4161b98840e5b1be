import sortedBtree from "sorted-btree";
import type { AclPolicy, AclRole, AclToken } from "../areas/acl-records.js";
import type { AuthMethod, BindingRule } from "../areas/auth-methods.js";
import type { AutopilotConfig } from "../areas/autopilot.js";
import type { Namespace } from "../areas/namespaces.js";
import type { PreparedQuery } from "../areas/prepared-queries.js";
import type {
  CatalogNode,
  ConfigEntry,
  CoordinateEntry,
  HealthCheck,
  NodeService,
  Session,
} from "../types.js";

// sorted-btree is CommonJS with a default export: Node puts the class on `.default`, bundlers (vitest) may
// hand the class itself.
const BTreeClass: typeof sortedBtree.default =
  sortedBtree.default ?? (sortedBtree as unknown as typeof sortedBtree.default);
export type BTree<K, V> = import("sorted-btree").default<K, V>;

/** Wider than the default 32: one descent touches fewer nodes, which matters for random access to big trees. */
const NODE_SIZE = 64;

/** All our trees are keyed by strings; a plain comparator skips the default one's type dispatch. */
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function newTree<V>(): BTree<string, V> {
  return new BTreeClass<string, V>(undefined, compareStrings, NODE_SIZE);
}

/**
 * A stored KV entry. The key lives only in the tree (as `ns \0 key`); the value is a latin1 "binary string"
 * (one char per byte) because V8 stores those compactly on the heap, about 100 bytes less per entry than a
 * Uint8Array view, and with no external backing store to track.
 */
export class KvRecord {
  constructor(
    readonly value: string,
    readonly flags: bigint,
    readonly createIndex: number,
    readonly modifyIndex: number,
    readonly lockIndex: number,
    readonly session: string | undefined,
  ) {}
}

/** Per-table last-change indexes (the `index` table of Consul's memdb). */
export interface TableIndexes {
  kvs: number;
  sessions: number;
  nodes: number;
  services: number;
  checks: number;
  coordinates: number;
  configEntries: number;
  preparedQueries: number;
  aclTokens: number;
  aclPolicies: number;
  aclRoles: number;
  namespaces: number;
  aclAuthMethods: number;
  aclBindingRules: number;
}

export const SEP = "\u0000";

/** Composite keys: the parts never contain NUL, so ordering by the string orders by the parts. */
export function joinKey(...parts: string[]): string {
  return parts.join(SEP);
}

/** The smallest string greater than every string that starts with `prefix`. */
export function prefixEnd(prefix: string): string {
  return `${prefix}\uffff`;
}

/** Tables that hold state: written to snapshots. A new table is a name here plus its type below. */
export const PRIMARY_TABLES = [
  "kv",
  "tombstones",
  "lockDelays",
  "sessions",
  "nodes",
  "services",
  "checks",
  "coordinates",
  "serviceIndexes",
  "configEntries",
  "preparedQueries",
  "aclTokens",
  "aclPolicies",
  "aclRoles",
  "aclMeta",
  "namespaces",
  "aclAuthMethods",
  "aclBindingRules",
  "autopilot",
] as const;

/** Secondary indexes: derived from the primary tables, rebuilt on restore (see derived.ts). */
export const DERIVED_TABLES = [
  "kvBySession",
  "sessionsByNode",
  "sessionsByCheck",
  "servicesByName",
  "nodeIds",
  "configLinks",
  "preparedQueryNames",
  "preparedQueriesBySession",
  "aclTokenSecrets",
  "aclTokenLinks",
  "aclTokenExpiry",
  "aclPolicyNames",
  "aclRoleNames",
] as const;

export type PrimaryTable = (typeof PRIMARY_TABLES)[number];
export type TableName = PrimaryTable | (typeof DERIVED_TABLES)[number];

const ZERO_INDEXES: TableIndexes = {
  kvs: 0,
  sessions: 0,
  nodes: 0,
  services: 0,
  checks: 0,
  coordinates: 0,
  configEntries: 0,
  preparedQueries: 0,
  aclTokens: 0,
  aclPolicies: 0,
  aclRoles: 0,
  namespaces: 0,
  aclAuthMethods: 0,
  aclBindingRules: 0,
};

/**
 * Every table of the state store. All are sorted-btree trees so `clone()` is O(1) copy-on-write: a clone is
 * a consistent read view or a rollback point. Records in the trees are never mutated, only replaced.
 */
export class Tables {
  // Declared here, created by the constructor's loop over the table names.
  /** ns \0 key -> record */
  declare readonly kv: BTree<string, KvRecord>;
  /** ns \0 key -> index of the delete */
  declare readonly tombstones: BTree<string, number>;
  /** ns \0 key -> ms before which acquires are refused */
  declare readonly lockDelays: BTree<string, number>;
  /** session ID -> session */
  declare readonly sessions: BTree<string, Session>;
  /** node name -> node */
  declare readonly nodes: BTree<string, CatalogNode>;
  /** node \0 ns \0 service ID -> service */
  declare readonly services: BTree<string, NodeService>;
  /** node \0 ns \0 check ID -> check */
  declare readonly checks: BTree<string, HealthCheck>;
  /** node \0 segment -> coordinate */
  declare readonly coordinates: BTree<string, CoordinateEntry>;
  /** ns \0 service name -> last index anything about that service name changed (survives deregistration) */
  declare readonly serviceIndexes: BTree<string, number>;
  /** kind \0 ns \0 name -> config entry */
  declare readonly configEntries: BTree<string, ConfigEntry>;
  /** query ID -> prepared query */
  declare readonly preparedQueries: BTree<string, PreparedQuery>;
  /** session \0 ns \0 key: the keys each session holds */
  declare readonly kvBySession: BTree<string, true>;
  /** node \0 session ID */
  declare readonly sessionsByNode: BTree<string, true>;
  /** node \0 ns \0 check ID \0 session ID */
  declare readonly sessionsByCheck: BTree<string, true>;
  /** ns \0 service name \0 node \0 service ID -> service (same record as in `services`) */
  declare readonly servicesByName: BTree<string, NodeService>;
  /** node ID -> node name */
  declare readonly nodeIds: BTree<string, string>;
  /** target ns \0 target service \0 kind \0 ns \0 name: the chain entries that send traffic to a service */
  declare readonly configLinks: BTree<string, true>;
  /** lower-cased query name -> query ID (named queries, and the catch-all template under "") */
  declare readonly preparedQueryNames: BTree<string, string>;
  /** session \0 query ID: the queries each session binds */
  declare readonly preparedQueriesBySession: BTree<string, true>;
  /** accessor ID -> ACL token */
  declare readonly aclTokens: BTree<string, AclToken>;
  /** policy ID -> ACL policy */
  declare readonly aclPolicies: BTree<string, AclPolicy>;
  /** role ID -> ACL role */
  declare readonly aclRoles: BTree<string, AclRole>;
  /** "bootstrap" -> index of the ACL bootstrap */
  declare readonly aclMeta: BTree<string, number>;
  /** name -> namespace (the built-in default only once written) */
  declare readonly namespaces: BTree<string, Namespace>;
  /** "config" -> the cluster's autopilot configuration (one row) */
  declare readonly autopilot: BTree<string, AutopilotConfig>;
  /** ns \0 name -> auth method; binding rule ID -> binding rule */
  declare readonly aclAuthMethods: BTree<string, AuthMethod>;
  declare readonly aclBindingRules: BTree<string, BindingRule>;
  /** secret ID -> accessor ID */
  declare readonly aclTokenSecrets: BTree<string, string>;
  /** p \0 policy ID \0 accessor, r \0 role ID \0 accessor, m \0 ns \0 auth method \0 accessor */
  declare readonly aclTokenLinks: BTree<string, true>;
  /** ExpirationTime (RFC 3339 UTC) \0 accessor */
  declare readonly aclTokenExpiry: BTree<string, true>;
  /** ns \0 lower-cased policy name -> policy ID */
  declare readonly aclPolicyNames: BTree<string, string>;
  /** ns \0 lower-cased role name -> role ID */
  declare readonly aclRoleNames: BTree<string, string>;
  readonly indexes: TableIndexes;

  constructor(source?: Tables) {
    const trees = this as unknown as Record<TableName, BTree<string, unknown>>;
    for (const name of [...PRIMARY_TABLES, ...DERIVED_TABLES]) {
      trees[name] = source ? (source as unknown as typeof trees)[name].clone() : newTree();
    }
    this.indexes = { ...(source?.indexes ?? ZERO_INDEXES) };
  }

  clone(): Tables {
    return new Tables(this);
  }
}
