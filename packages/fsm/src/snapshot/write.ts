import { kvValue, unpackKv } from "../kv/records.js";
import { PRIMARY_TABLES, type PrimaryTable } from "../schema.js";
import type { BTree, Tables } from "../store/tables.js";
import { ROWS_PER_FRAME, SNAPSHOT_MAGIC, SNAPSHOT_VERSION, snapshotPackr } from "./format.js";

/** One frame: the 4-byte big-endian length, then the value in msgpack. */
export function frame(value: unknown): Uint8Array {
  const body = snapshotPackr.pack(value);
  const out = Buffer.allocUnsafe(4 + body.byteLength);
  out.writeUInt32BE(body.byteLength, 0);
  out.set(body, 4);
  return out;
}

/** Appends each row's cells to `cells` (KV rows are KV_CELLS wide, others key + record) and yields per row. */
function* rows(t: Tables, table: PrimaryTable, cells: unknown[]): Generator<void> {
  if (table === "kv") {
    for (const [k, r] of t.kv.entries()) {
      const m = unpackKv(r);
      cells.push(
        k,
        kvValue(r, m.valueAt),
        m.flags,
        m.createIndex,
        m.modifyIndex,
        m.lockIndex,
        m.session ?? null,
      );
      yield;
    }
    return;
  }
  for (const [k, v] of (t[table] as BTree<string, unknown>).entries()) {
    cells.push(k, v);
    yield;
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
    const flush = () => {
      const out = frame([table, count, cells]);
      total += count;
      cells.length = 0;
      count = 0;
      return out;
    };
    for (const _ of rows(t, table, cells)) {
      if (++count === ROWS_PER_FRAME) yield flush();
    }
    if (count > 0) yield flush();
  }
  yield frame(["end", total]);
}
