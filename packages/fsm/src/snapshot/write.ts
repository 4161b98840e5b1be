import { kvValue, unpackKv } from "../kv/records.js";
import { PRIMARY_TABLES, type PrimaryTable } from "../schema.js";
import type { BTree, Tables } from "../store/tables.js";
import {
  FRAME_VALUE_BYTES,
  ROWS_PER_FRAME,
  SNAPSHOT_MAGIC,
  SNAPSHOT_VERSION,
  snapshotPackr,
} from "./format.js";

/** One frame: the 4-byte big-endian length, then the value in msgpack. */
export function frame(value: unknown): Uint8Array {
  const body = snapshotPackr.pack(value);
  const out = Buffer.allocUnsafe(4 + body.byteLength);
  out.writeUInt32BE(body.byteLength, 0);
  out.set(body, 4);
  return out;
}

/**
 * Appends each row's cells to `cells` (KV rows are KV_CELLS wide, others key + record) and yields per row the
 * bytes of its value (KV rows; 0 for the others).
 */
function* rows(t: Tables, table: PrimaryTable, cells: unknown[]): Generator<number> {
  if (table === "kv") {
    for (const [k, r] of t.kv.entries()) {
      const m = unpackKv(r);
      const value = kvValue(r, m.valueAt);
      cells.push(k, value, m.flags, m.createIndex, m.modifyIndex, m.lockIndex, m.session ?? null);
      yield value.byteLength;
    }
    return;
  }
  for (const [k, v] of (t[table] as BTree<string, unknown>).entries()) {
    cells.push(k, v);
    yield 0;
  }
}

/**
 * Streams a view's whole state as snapshot frames. The view is a copy-on-write clone, so applies may go
 * on while this is consumed; memory stays at one frame.
 */
export function* writeSnapshot(t: Tables, index: number): Generator<Uint8Array> {
  yield frame([SNAPSHOT_MAGIC, SNAPSHOT_VERSION, index, t.indexes]);
  let total = 0;
  for (const table of PRIMARY_TABLES) {
    const cells: unknown[] = [];
    let count = 0;
    let valueBytes = 0;
    const flush = () => {
      const out = frame([table, count, cells]);
      total += count;
      cells.length = 0;
      count = 0;
      valueBytes = 0;
      return out;
    };
    for (const bytes of rows(t, table, cells)) {
      valueBytes += bytes;
      if (++count === ROWS_PER_FRAME || valueBytes >= FRAME_VALUE_BYTES) yield flush();
    }
    if (count > 0) yield flush();
  }
  yield frame(["end", total]);
}
