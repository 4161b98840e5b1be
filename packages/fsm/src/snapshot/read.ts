import { packKv } from "../kv/records.js";
import { newTables, PRIMARY_TABLES, type PrimaryTable, rebuildDerived } from "../schema.js";
import type { BTree, TableIndexes, Tables } from "../store/tables.js";
import { KV_CELLS, SNAPSHOT_MAGIC, SNAPSHOT_VERSION, SnapshotFormatError, snapshotPackr } from "./format.js";

type Cells = readonly unknown[];

export interface SnapshotReaderOptions {
  /**
   * Receives the frames after the end frame (what the state machine appends to a Raft snapshot; see
   * entries/machine.ts). Without it, data after the end is refused.
   */
  readonly trailer?: (frame: unknown[]) => void;
  /** Checks the stream (framing, header, tables, row counts) without building the tables. */
  readonly checkOnly?: boolean;
}

/** Far above any real header (magic, version, index and the tables' indexes): more is not a snapshot. */
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Rebuilds tables from snapshot frames pushed in chunks of any size. Rows are trusted to be what
 * writeSnapshot wrote (the stream is ours); the framing, header, tables and row count are checked.
 */
export class SnapshotReader {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #tables = newTables();
  #index: number | undefined;
  #rows = 0;
  #ended = false;
  readonly #options: SnapshotReaderOptions;

  constructor(options: SnapshotReaderOptions = {}) {
    this.#options = options;
  }

  push(chunk: Uint8Array): void {
    this.#pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.#pendingBytes += chunk.byteLength;
    for (;;) {
      if (this.#pendingBytes < 4) return;
      const length = this.#contiguous(4).readUInt32BE(0);
      if (this.#index === undefined && length > MAX_HEADER_BYTES) throw this.#notSnapshot();
      if (this.#pendingBytes < 4 + length) return;
      const framed = this.#contiguous(4 + length);
      this.#consume(4 + length);
      let value: unknown;
      try {
        value = snapshotPackr.unpack(framed.subarray(4, 4 + length));
      } catch (err) {
        throw new SnapshotFormatError(`snapshot frame is not valid msgpack: ${(err as Error).message}`);
      }
      this.#frame(value);
    }
  }

  /** The header was read and is a snapshot's. */
  get started(): boolean {
    return this.#index !== undefined;
  }

  finish(): { tables: Tables; index: number } {
    if (!this.#ended || this.#pendingBytes !== 0 || this.#index === undefined) {
      throw new SnapshotFormatError("snapshot stream is truncated");
    }
    rebuildDerived(this.#tables);
    return { tables: this.#tables, index: this.#index };
  }

  #notSnapshot(): SnapshotFormatError {
    return new SnapshotFormatError(`not a version ${SNAPSHOT_VERSION} Cairn state snapshot`);
  }

  #contiguous(n: number): Buffer {
    if (this.#pending[0]!.byteLength < n) this.#pending = [Buffer.concat(this.#pending)];
    return this.#pending[0]!;
  }

  #consume(n: number): void {
    const first = this.#pending[0]!;
    this.#pendingBytes -= n;
    if (first.byteLength === n) this.#pending.shift();
    else this.#pending[0] = first.subarray(n);
  }

  #frame(value: unknown): void {
    if (!Array.isArray(value)) throw new SnapshotFormatError("snapshot frame is not an array");
    if (this.#ended) {
      if (!this.#options.trailer) throw new SnapshotFormatError("data after the end of the snapshot");
      this.#options.trailer(value);
      return;
    }
    if (this.#index === undefined) {
      const [magic, version, index, indexes] = value;
      if (magic !== SNAPSHOT_MAGIC || version !== SNAPSHOT_VERSION || typeof index !== "number") {
        throw this.#notSnapshot();
      }
      this.#index = index;
      Object.assign(this.#tables.indexes, indexes as TableIndexes);
      return;
    }
    const [table, count, cells] = value as [string, number, Cells];
    if (table === "end") {
      if (count !== this.#rows) throw new SnapshotFormatError("snapshot row count mismatch");
      this.#ended = true;
      return;
    }
    const width = table === "kv" ? KV_CELLS : 2;
    if (
      !(PRIMARY_TABLES as readonly string[]).includes(table) ||
      !Array.isArray(cells) ||
      cells.length !== count * width
    ) {
      throw new SnapshotFormatError(`malformed snapshot frame for table "${String(table)}"`);
    }
    this.#rows += count;
    if (this.#options.checkOnly) return;
    if (table === "kv") {
      this.#kvRows(cells);
      return;
    }
    const tree = this.#tables[table as Exclude<PrimaryTable, "kv">] as BTree<string, unknown>;
    for (let at = 0; at < cells.length; at += 2) tree.set(cells[at] as string, cells[at + 1]);
  }

  #kvRows(cells: Cells): void {
    const kv = this.#tables.kv;
    for (let at = 0; at < cells.length; at += KV_CELLS) {
      const meta = {
        flags: cells[at + 2] as bigint,
        createIndex: cells[at + 3] as number,
        modifyIndex: cells[at + 4] as number,
        lockIndex: cells[at + 5] as number,
        session: (cells[at + 6] as string | null) ?? undefined,
      };
      kv.set(cells[at] as string, packKv(cells[at + 1] as Buffer, meta));
    }
  }
}
