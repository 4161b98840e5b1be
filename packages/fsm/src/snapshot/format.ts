import { Packr } from "msgpackr";

/**
 * Snapshot stream: a sequence of frames, each a 4-byte big-endian length and a msgpack array. The first
 * frame is the header, then for each primary table (schema.ts) frames of at most ROWS_PER_FRAME rows, then
 * the end frame with the row count. Secondary indexes are not written; restore rebuilds them.
 * Frames are independent msgpack values (no shared records) so the bytes depend only on the state.
 */
export const SNAPSHOT_MAGIC = "cairn-fsm-snapshot";
export const SNAPSHOT_VERSION = 1;
export const ROWS_PER_FRAME = 4096;

export const snapshotPackr = new Packr({ useRecords: false, int64AsType: "bigint", mapsAsObjects: true });

/** A KV row: key, value (bin), flags, CreateIndex, ModifyIndex, LockIndex, session or null. Other rows: key, record. */
export const KV_CELLS = 7;

export class SnapshotFormatError extends Error {
  override readonly name = "SnapshotFormatError";
}
