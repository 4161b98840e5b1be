import { crc32 } from "node:zlib";
import { Packr } from "msgpackr";
import type { Entry, EntryKind, HardState, SnapshotMeta } from "../core/types.js";
import type { SnapshotFileInfo } from "./snapshot-files.js";

// Key layout of the log database. Entries sort by index because the index is big-endian after the prefix.
export const KEY_VERSION = Buffer.from("v");
export const KEY_HARD_STATE = Buffer.from("h");
export const KEY_SNAPSHOT = Buffer.from("s");
export const KEY_ADDRESSES = Buffer.from("a");
const ENTRY_PREFIX = 0x65; // "e"
export const ENTRY_RANGE = { gte: Buffer.from([ENTRY_PREFIX]), lt: Buffer.from([ENTRY_PREFIX + 1]) };
/**
 * One empty record per conf entry, keyed like the entries: the index of conf entries, so `open` finds the
 * configurations without reading the log (version 2; a version 1 log is indexed once at open).
 */
const CONF_PREFIX = 0x63; // "c"
export const CONF_RANGE = { gte: Buffer.from([CONF_PREFIX]), lt: Buffer.from([CONF_PREFIX + 1]) };

export const FORMAT_VERSION = 2;
/** Older formats `open` upgrades in place. */
export const UPGRADABLE_VERSIONS: readonly string[] = ["1"];

function indexKey(prefix: number, index: number): Buffer {
  const key = Buffer.allocUnsafe(9);
  key[0] = prefix;
  key.writeUInt32BE(Math.floor(index / 0x1_0000_0000), 1);
  key.writeUInt32BE(index >>> 0, 5);
  return key;
}

function indexOfKey(prefix: number, key: Uint8Array): number | undefined {
  if (key.length !== 9 || key[0] !== prefix) return undefined;
  const b = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return b.readUInt32BE(1) * 0x1_0000_0000 + b.readUInt32BE(5);
}

export function entryKey(index: number): Buffer {
  return indexKey(ENTRY_PREFIX, index);
}

export function entryIndexOfKey(key: Uint8Array): number | undefined {
  return indexOfKey(ENTRY_PREFIX, key);
}

export function confKey(index: number): Buffer {
  return indexKey(CONF_PREFIX, index);
}

export function confIndexOfKey(key: Uint8Array): number | undefined {
  return indexOfKey(CONF_PREFIX, key);
}

const KINDS: readonly EntryKind[] = ["normal", "conf", "noop"];

/**
 * Entry value: crc32 (u32) | term (u48) | kind (u8) | data. The checksum also covers the key, so a value
 * found under the wrong index is caught as surely as a torn one.
 */
const ENTRY_HEADER = 4 + 6 + 1;

export function encodeEntry(e: Entry): Buffer {
  const value = Buffer.allocUnsafe(ENTRY_HEADER + e.data.byteLength);
  value.writeUIntBE(e.term, 4, 6);
  value[10] = KINDS.indexOf(e.kind);
  value.set(e.data, ENTRY_HEADER);
  value.writeUInt32BE(crc32(value.subarray(4), crc32(entryKey(e.index))), 0);
  return value;
}

/** The entry stored under `key`, or why the stored bytes cannot be it. */
export function decodeEntry(key: Uint8Array, value: Uint8Array): Entry | string {
  const index = entryIndexOfKey(key);
  if (index === undefined) return "malformed entry key";
  if (value.byteLength < ENTRY_HEADER) return `entry ${index} is truncated (${value.byteLength} bytes)`;
  const v = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (v.readUInt32BE(0) !== crc32(v.subarray(4), crc32(key))) return `entry ${index} fails its checksum`;
  const kind = KINDS[v[10] ?? 255];
  if (kind === undefined) return `entry ${index} has unknown kind ${v[10]}`;
  return { index, term: v.readUIntBE(4, 6), kind, data: v.subarray(ENTRY_HEADER) };
}

// Small records (hard state, snapshot, addresses): crc32 (u32) | msgpack body.
const packr = new Packr({ useRecords: false, moreTypes: false });

export function encodeRecord(body: unknown): Buffer {
  const packed = packr.pack(body);
  const value = Buffer.allocUnsafe(4 + packed.byteLength);
  value.set(packed, 4);
  value.writeUInt32BE(crc32(packed), 0);
  return value;
}

export function decodeRecord(value: Uint8Array): unknown {
  if (value.byteLength < 4) throw new Error("record is truncated");
  const v = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (v.readUInt32BE(0) !== crc32(v.subarray(4))) throw new Error("record fails its checksum");
  return packr.unpack(v.subarray(4));
}

export interface SnapshotRecord {
  meta: SnapshotMeta;
  file: SnapshotFileInfo;
}

const isUint = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

export function isHardState(v: unknown): v is HardState {
  if (typeof v !== "object" || v === null) return false;
  const h = v as Record<string, unknown>;
  return isUint(h.term) && isUint(h.commit) && (h.vote === null || typeof h.vote === "string");
}

export function isSnapshotMeta(v: unknown): v is SnapshotMeta {
  if (typeof v !== "object" || v === null) return false;
  const m = v as Record<string, unknown>;
  if (!isUint(m.index) || !isUint(m.term) || typeof m.conf !== "object" || m.conf === null) return false;
  const c = m.conf as Record<string, unknown>;
  return isStrings(c.voters) && isStrings(c.learners);
}

export function isSnapshotRecord(v: unknown): v is SnapshotRecord {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  if (!isSnapshotMeta(r.meta) || typeof r.file !== "object" || r.file === null) return false;
  const f = r.file as Record<string, unknown>;
  return typeof f.name === "string" && isUint(f.size) && isUint(f.crc);
}

export function isAddressBook(v: unknown): v is Record<string, string> {
  return typeof v === "object" && v !== null && Object.values(v).every((a) => typeof a === "string");
}
