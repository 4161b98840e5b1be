import { indexPolicy, indexRole, indexToken } from "./acl/writes.js";
import { rebuildCatalogIndexes } from "./catalog/writes.js";
import { linkConfigEntry } from "./config/writes.js";
import { rebuildKvIndexes } from "./kv/writes.js";
import { indexPreparedQuery } from "./queries/writes.js";
import { indexSession } from "./sessions/writes.js";
import { emptyTables, type TableIndexes, type TableName, type Tables } from "./store/tables.js";

/**
 * Every area's tables (each declares them in its own tables.ts). This is the one list snapshots follow:
 * primary tables are written in this order, secondary indexes are rebuilt from them on restore.
 */
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
] as const satisfies readonly TableName[];

/** Secondary indexes: derived from the primary tables, rebuilt on restore by rebuildDerived. */
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
] as const satisfies readonly TableName[];

export type PrimaryTable = (typeof PRIMARY_TABLES)[number];

// A table an area declares but this file does not list would be neither snapshotted nor rebuilt.
type Unlisted = Exclude<TableName, PrimaryTable | (typeof DERIVED_TABLES)[number]>;
const everyTableListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTableListed;

const TABLE_INDEXES = [
  "kvs",
  "sessions",
  "nodes",
  "services",
  "checks",
  "coordinates",
  "configEntries",
  "preparedQueries",
  "aclTokens",
  "aclPolicies",
  "aclRoles",
  "namespaces",
  "aclAuthMethods",
  "aclBindingRules",
] as const satisfies readonly (keyof TableIndexes)[];

type UnlistedIndex = Exclude<keyof TableIndexes, (typeof TABLE_INDEXES)[number]>;
const everyIndexListed: [UnlistedIndex] extends [never] ? true : UnlistedIndex = true;
void everyIndexListed;

const SCHEMA = { tables: [...PRIMARY_TABLES, ...DERIVED_TABLES], indexes: TABLE_INDEXES };

/** Empty tables of every area. */
export function newTables(): Tables {
  return emptyTables(SCHEMA);
}

/** Rebuilds every secondary index from the primary tables (after a snapshot restore). */
export function rebuildDerived(t: Tables): void {
  rebuildKvIndexes(t);
  t.sessions.forEach((s) => void indexSession(t, s));
  rebuildCatalogIndexes(t);
  t.configEntries.forEach((e) => {
    linkConfigEntry(t, e, true);
  });
  t.preparedQueries.forEach((q) => void indexPreparedQuery(t, q));
  t.aclTokens.forEach((tok) => void indexToken(t, tok));
  t.aclPolicies.forEach((p) => void indexPolicy(t, p));
  t.aclRoles.forEach((r) => void indexRole(t, r));
}
