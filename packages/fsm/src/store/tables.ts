import sortedBtree from "sorted-btree";

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
 * The row type of every table, by table name. Each area declares its own tables by merging into this
 * interface from its `tables.ts` (`declare module "../store/tables.js"`), so the core names no area.
 */
// biome-ignore lint/suspicious/noEmptyInterface: areas merge their tables in.
export interface TableRows {}

/** Per-table last-change indexes (the `index` table of Consul's memdb); areas merge theirs in likewise. */
// biome-ignore lint/suspicious/noEmptyInterface: areas merge their indexes in.
export interface TableIndexes {}

export type TableName = keyof TableRows;
type TableTrees = { readonly [K in TableName]: BTree<string, TableRows[K]> };

/** Which tables and indexes exist (the composition root lists every area's, see schema.ts). */
export interface TableSchema {
  readonly tables: readonly TableName[];
  readonly indexes: readonly (keyof TableIndexes)[];
}

/**
 * Every table of the state store. All are sorted-btree trees so `clone()` is O(1) copy-on-write: a clone is
 * a consistent read view or a rollback point. Records in the trees are never mutated, only replaced.
 */
class TableSet {
  readonly indexes: TableIndexes;

  constructor(
    readonly schema: TableSchema,
    source?: TableSet,
  ) {
    const trees = this as unknown as Record<string, BTree<string, unknown>>;
    const from = source as unknown as Record<string, BTree<string, unknown>> | undefined;
    for (const name of schema.tables) trees[name] = from ? from[name]!.clone() : newTree();
    this.indexes = source
      ? { ...source.indexes }
      : (Object.fromEntries(schema.indexes.map((name) => [name, 0])) as unknown as TableIndexes);
  }

  clone(): Tables {
    return new TableSet(this.schema, this) as Tables;
  }
}

export type Tables = TableSet & TableTrees;

export function emptyTables(schema: TableSchema): Tables {
  return new TableSet(schema) as Tables;
}
