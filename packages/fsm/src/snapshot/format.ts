import { Packr } from "msgpackr";

/**
 * Snapshot stream: a sequence of frames, each a 4-byte big-endian length and a msgpack array. The first
 * frame is the header, then table frames of at most ROWS_PER_FRAME rows, then the end frame with a row count.
 * Frames are independent msgpack values (no shared records) so the bytes depend only on the state.
 */
export const SNAPSHOT_MAGIC = "cairn-fsm-snapshot";
export const SNAPSHOT_VERSION = 1;
export const ROWS_PER_FRAME = 4096;

export const snapshotPackr = new Packr({ useRecords: false, int64AsType: "bigint", mapsAsObjects: true });

/** Stored tables in the order they are written. Secondary indexes are rebuilt on restore, not written. */
export const SNAPSHOT_TABLES = [
  "kv",
  "tombstones",
  "lockDelays",
  "sessions",
  "nodes",
  "services",
  "checks",
  "coordinates",
  "serviceIndexes",
] as const;
export type SnapshotTable = (typeof SNAPSHOT_TABLES)[number];

export class SnapshotFormatError extends Error {
  override readonly name = "SnapshotFormatError";
}
