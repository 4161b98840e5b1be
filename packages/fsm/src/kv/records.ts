/**
 * A stored KV entry is one latin1 string (one char per byte): a small header, then the value's bytes. The key
 * lives only in the tree (as `ns \0 key`).
 *
 * Why a string and not an object: on the heap an object costs 24 bytes of header plus 8 per field (Node has
 * no pointer compression), so the six fields of an entry took 72 bytes next to the value's own string. One
 * flat one-byte string holds both with a single 16-byte header, no external backing store to track, and
 * stays immutable, which the copy-on-write trees need. A million 100-byte entries weigh ~60 MB less.
 *
 * Header: a tag byte, then varints (7 bits a byte, low first): ModifyIndex; CreateIndex unless equal to it;
 * LockIndex when not 0; Flags as 8 big-endian bytes when not 0; the session's UTF-8 length and bytes when
 * held. This module is the only one that reads or writes the layout.
 */
export type KvRecord = string & { readonly __kvRecord: unique symbol };

/** Everything of an entry but its key and value. */
export interface KvMeta {
  readonly flags: bigint;
  readonly createIndex: number;
  readonly modifyIndex: number;
  readonly lockIndex: number;
  /** ID of the session holding the lock; undefined when unlocked. */
  readonly session: string | undefined;
}

/** KvMeta plus where the value starts in the record. */
export interface KvUnpacked extends KvMeta {
  readonly valueAt: number;
}

const HAS_CREATE = 1; // CreateIndex differs from ModifyIndex
const HAS_LOCK = 2;
const HAS_FLAGS = 4;
const HAS_SESSION = 8;

function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

// Indexes go up to 2^53, past what bit operators handle: the varints use arithmetic.
function writeVarint(buf: Buffer, at: number, n: number): number {
  while (n >= 128) {
    buf[at++] = (n % 128) | 128;
    n = Math.floor(n / 128);
  }
  buf[at++] = n;
  return at;
}

/** Where the last readVarint stopped: a module cursor rather than a returned pair, so reads allocate nothing. */
let cursor = 0;

function readVarint(r: string, at: number): number {
  let n = 0;
  let scale = 1;
  for (;;) {
    const b = r.charCodeAt(at++);
    n += (b & 127) * scale;
    if (b < 128) break;
    scale *= 128;
  }
  cursor = at;
  return n;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Packs an entry. `value` is copied; the record shares nothing with it. */
export function packKv(value: Uint8Array, meta: KvMeta): KvRecord {
  const { flags, createIndex, modifyIndex, lockIndex, session } = meta;
  let tag = 0;
  let size = 1 + varintSize(modifyIndex);
  if (createIndex !== modifyIndex) {
    tag |= HAS_CREATE;
    size += varintSize(createIndex);
  }
  if (lockIndex !== 0) {
    tag |= HAS_LOCK;
    size += varintSize(lockIndex);
  }
  if (flags !== 0n) {
    tag |= HAS_FLAGS;
    size += 8;
  }
  const sessionBytes = session ? Buffer.byteLength(session, "utf8") : 0;
  if (session) {
    tag |= HAS_SESSION;
    size += varintSize(sessionBytes) + sessionBytes;
  }
  const buf = Buffer.allocUnsafe(size + value.byteLength);
  buf[0] = tag;
  let at = writeVarint(buf, 1, modifyIndex);
  if (tag & HAS_CREATE) at = writeVarint(buf, at, createIndex);
  if (tag & HAS_LOCK) at = writeVarint(buf, at, lockIndex);
  if (tag & HAS_FLAGS) at = buf.writeBigUInt64BE(flags, at);
  if (session) {
    at = writeVarint(buf, at, sessionBytes);
    at += buf.write(session, at, "utf8");
  }
  buf.set(value, at);
  return buf.toString("latin1") as KvRecord;
}

/** Reads a record's header. */
export function unpackKv(r: KvRecord): KvUnpacked {
  const tag = r.charCodeAt(0);
  const modifyIndex = readVarint(r, 1);
  const createIndex = tag & HAS_CREATE ? readVarint(r, cursor) : modifyIndex;
  const lockIndex = tag & HAS_LOCK ? readVarint(r, cursor) : 0;
  let at = cursor;
  let flags = 0n;
  if (tag & HAS_FLAGS) {
    flags = Buffer.from(r.slice(at, at + 8), "latin1").readBigUInt64BE(0);
    at += 8;
  }
  let session: string | undefined;
  if (tag & HAS_SESSION) {
    const length = readVarint(r, at);
    const raw = r.slice(cursor, cursor + length);
    // Session IDs are ASCII UUIDs; anything else was stored as UTF-8 and is decoded back.
    session = isAscii(raw) ? raw : Buffer.from(raw, "latin1").toString("utf8");
    at = cursor + length;
  }
  return { flags, createIndex, modifyIndex, lockIndex, session, valueAt: at };
}

/** The entry's ModifyIndex alone: what scans and checks need, without decoding the rest. */
export function kvModifyIndex(r: KvRecord): number {
  return readVarint(r, 1);
}

/** A fresh copy of the value's bytes (`valueAt` from unpackKv). */
export function kvValue(r: KvRecord, valueAt: number): Buffer {
  return Buffer.from(r, "latin1").subarray(valueAt);
}

/** The same value with a new header. */
export function repackKv(r: KvRecord, meta: KvMeta): KvRecord {
  return packKv(kvValue(r, unpackKv(r).valueAt), meta);
}

/** A KV entry as reads return it. `Value` is null in transaction results of write verbs. */
export interface KVEntry {
  readonly Key: string;
  readonly Value: Uint8Array | null;
  /** Exact over 0..2^64-1; never a JS number. */
  readonly Flags: bigint;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly LockIndex: number;
  /** ID of the session holding the lock; absent when unlocked. */
  readonly Session?: string;
  readonly Namespace: string;
}
