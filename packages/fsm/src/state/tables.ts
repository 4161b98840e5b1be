import sortedBtree from "sorted-btree";
import type { CatalogNode, CoordinateEntry, HealthCheck, NodeService, Session } from "../types.js";

// sorted-btree is CommonJS with a default export: Node puts the class on `.default`, bundlers (vitest) may
// hand the class itself.
const BTreeClass: typeof sortedBtree.default =
  sortedBtree.default ?? (sortedBtree as unknown as typeof sortedBtree.default);
export type BTree<K, V> = import("sorted-btree").default<K, V>;

/** All our trees are keyed by strings; a plain comparator skips the default one's type dispatch. */
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function newTree<V>(): BTree<string, V> {
  return new BTreeClass<string, V>(undefined, compareStrings);
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

/**
 * Every table of the state store. All are sorted-btree trees so `clone()` is O(1) copy-on-write: a clone is
 * a consistent read view or a rollback point. Records in the trees are never mutated, only replaced.
 */
export class Tables {
  constructor(
    /** ns \0 key -> record */
    readonly kv: BTree<string, KvRecord> = newTree(),
    /** ns \0 key -> index of the delete */
    readonly tombstones: BTree<string, number> = newTree(),
    /** session \0 ns \0 key: the keys each session holds */
    readonly kvBySession: BTree<string, true> = newTree(),
    /** ns \0 key -> ms before which acquires are refused */
    readonly lockDelays: BTree<string, number> = newTree(),
    /** session ID -> session */
    readonly sessions: BTree<string, Session> = newTree(),
    /** node \0 session ID */
    readonly sessionsByNode: BTree<string, true> = newTree(),
    /** node \0 check ID \0 session ID */
    readonly sessionsByCheck: BTree<string, true> = newTree(),
    /** node name -> node */
    readonly nodes: BTree<string, CatalogNode> = newTree(),
    /** node \0 ns \0 service ID -> service */
    readonly services: BTree<string, NodeService> = newTree(),
    /** ns \0 service name \0 node \0 service ID -> service (same record as in `services`) */
    readonly servicesByName: BTree<string, NodeService> = newTree(),
    /** node \0 check ID -> check */
    readonly checks: BTree<string, HealthCheck> = newTree(),
    /** node \0 segment -> coordinate */
    readonly coordinates: BTree<string, CoordinateEntry> = newTree(),
    /** ns \0 service name -> last index anything about that service name changed (survives deregistration) */
    readonly serviceIndexes: BTree<string, number> = newTree(),
    readonly indexes: TableIndexes = {
      kvs: 0,
      sessions: 0,
      nodes: 0,
      services: 0,
      checks: 0,
      coordinates: 0,
    },
  ) {}

  clone(): Tables {
    return new Tables(
      this.kv.clone(),
      this.tombstones.clone(),
      this.kvBySession.clone(),
      this.lockDelays.clone(),
      this.sessions.clone(),
      this.sessionsByNode.clone(),
      this.sessionsByCheck.clone(),
      this.nodes.clone(),
      this.services.clone(),
      this.servicesByName.clone(),
      this.checks.clone(),
      this.coordinates.clone(),
      this.serviceIndexes.clone(),
      { ...this.indexes },
    );
  }
}
