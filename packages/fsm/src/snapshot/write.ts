import type { Tables } from "../state/tables.js";
import {
  ROWS_PER_FRAME,
  SNAPSHOT_MAGIC,
  SNAPSHOT_TABLES,
  SNAPSHOT_VERSION,
  type SnapshotTable,
  snapshotPackr,
} from "./format.js";

function frame(value: unknown): Uint8Array {
  const body = snapshotPackr.pack(value);
  const out = Buffer.allocUnsafe(4 + body.byteLength);
  out.writeUInt32BE(body.byteLength, 0);
  out.set(body, 4);
  return out;
}

function* rows(t: Tables, table: SnapshotTable): Generator<unknown[]> {
  if (table === "kv") {
    for (const [k, r] of t.kv.entries()) {
      yield [k, r.value, r.flags, r.createIndex, r.modifyIndex, r.lockIndex, r.session ?? null];
    }
    return;
  }
  for (const [k, v] of t[table].entries()) yield [k, v];
}

/**
 * Streams a view's whole state as snapshot frames. The view is a copy-on-write clone, so applies may go
 * on while this is consumed; memory stays at one frame.
 */
export function* writeSnapshot(t: Tables, index: number): Generator<Uint8Array> {
  yield frame([SNAPSHOT_MAGIC, SNAPSHOT_VERSION, index, t.indexes]);
  let count = 0;
  for (const table of SNAPSHOT_TABLES) {
    let batch: unknown[][] = [];
    for (const row of rows(t, table)) {
      batch.push(row);
      if (batch.length === ROWS_PER_FRAME) {
        yield frame([table, batch]);
        count += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) {
      yield frame([table, batch]);
      count += batch.length;
    }
  }
  yield frame(["end", count]);
}
