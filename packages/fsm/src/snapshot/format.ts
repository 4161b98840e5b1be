import { Packr } from "msgpackr";

/**
 * Snapshot stream: a sequence of frames, each a 4-byte big-endian length and a msgpack array. The first
 * frame is the header, then for each primary table (schema.ts) frames of at most ROWS_PER_FRAME rows (fewer
 * once their KV values pass FRAME_VALUE_BYTES), then the end frame with the row count. Readers take frames of
 * any size: the bounds only keep the writer's work between two yields short. Secondary indexes are not
 * written; restore rebuilds them.
 * Frames are independent msgpack values (no shared records) so the bytes depend only on the state.
 */
export const SNAPSHOT_MAGIC = "cairn-fsm-snapshot";
export const SNAPSHOT_VERSION = 1;
/**
 * A server builds each frame in one go while it serves requests, so a frame is a pause in its event loop:
 * 512 rows take 1–3 ms (4096 took 10–20 ms on a busy two-core machine, which showed in write p99).
 */
export const ROWS_PER_FRAME = 512;
/** KV values of up to 512 KiB each would otherwise make a frame of hundreds of megabytes. */
export const FRAME_VALUE_BYTES = 256 * 1024;

export const snapshotPackr = new Packr({ useRecords: false, int64AsType: "bigint", mapsAsObjects: true });

/** A KV row: key, value (bin), flags, CreateIndex, ModifyIndex, LockIndex, session or null. Other rows: key, record. */
export const KV_CELLS = 7;

export class SnapshotFormatError extends Error {
  override readonly name = "SnapshotFormatError";
}
