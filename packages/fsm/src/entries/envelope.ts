import { Packr } from "msgpackr";
import { decodeCommand, encodeCommand } from "../commands/codec.js";
import { CommandDecodeError } from "../commands/errors.js";
import type { Command } from "../commands/types.js";

/**
 * Every Raft log entry the state machine applies. An entry is an envelope:
 *
 *   byte 0      ENTRY_FORMAT (1)
 *   byte 1      kind (ENTRY_KINDS)
 *   bytes 2-9   the leader's time, float64 big-endian ms since the epoch; NaN when not stamped
 *   bytes 10-   the body: a command's msgpack bytes, or a msgpack array for the restore kinds
 *
 * The time sits at a fixed place so the leader stamps it without decoding anything. Entries written
 * before the envelope still decode: a bare msgpack map is a command (its own `now` stands), and a 0xc1
 * byte (msgpack's one unused code) followed by an archive is a whole snapshot restore in one entry.
 * The envelope's first byte is a positive fixint, which neither legacy form can start with.
 */
export const ENTRY_FORMAT = 0x01;
const LEGACY_RESTORE = 0xc1;
const TIME_AT = 2;
const HEADER_BYTES = 10;

const ENTRY_KINDS = {
  command: 1,
  "restore-begin": 2,
  "restore-chunk": 3,
  "restore-commit": 4,
  "restore-abort": 5,
} as const;

type EnvelopeKind = keyof typeof ENTRY_KINDS;
const KIND_BY_CODE = new Map<number, EnvelopeKind>(
  Object.entries(ENTRY_KINDS).map(([kind, code]) => [code, kind as EnvelopeKind]),
);

/**
 * A snapshot restore streamed through the log (see machine.ts): `begin` opens a staging area under a
 * fresh id, `chunk`s append the archive's bytes in order, `commit` swaps the state for the staged archive
 * in one apply, `abort` drops it.
 */
export type RestoreEntry =
  | { readonly kind: "restore-begin"; readonly id: string }
  | { readonly kind: "restore-chunk"; readonly id: string; readonly seq: number; readonly data: Uint8Array }
  | { readonly kind: "restore-commit"; readonly id: string; readonly chunks: number; readonly bytes: number }
  | { readonly kind: "restore-abort"; readonly id: string };

export type LogEntry =
  | { readonly kind: "command"; readonly command: Command }
  /** Written by earlier versions only: the whole archive in one entry. */
  | { readonly kind: "restore"; readonly archive: Uint8Array }
  | RestoreEntry;

const bodyPackr = new Packr({ useRecords: false, int64AsType: "bigint", mapsAsObjects: true });

function envelope(kind: EnvelopeKind, body: Uint8Array, time = Number.NaN): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + body.byteLength);
  out[0] = ENTRY_FORMAT;
  out[1] = ENTRY_KINDS[kind];
  new DataView(out.buffer).setFloat64(TIME_AT, time);
  out.set(body, HEADER_BYTES);
  return out;
}

/** A command entry; `time` is the leader's clock when the leader itself encodes it. */
export function encodeCommandEntry(command: Command, time?: number): Uint8Array {
  return envelope("command", encodeCommand(command), time);
}

export function encodeRestoreEntry(entry: RestoreEntry): Uint8Array {
  switch (entry.kind) {
    case "restore-begin":
    case "restore-abort":
      return envelope(entry.kind, bodyPackr.pack([entry.id]));
    case "restore-chunk":
      return envelope(entry.kind, bodyPackr.pack([entry.id, entry.seq, entry.data]));
    case "restore-commit":
      return envelope(entry.kind, bodyPackr.pack([entry.id, entry.chunks, entry.bytes]));
  }
}

/**
 * The entry with the leader's clock as its time. The API stamps `now` on whichever server received the
 * request; with clocks that disagree, lock-delay and creation times would then depend on which server a
 * client talked to. The leader proposes every entry, so its clock is the one time source, as in Consul.
 * Only command entries carry a time; a bare legacy command (from a server of an earlier version) is
 * wrapped in an envelope; anything else comes back unchanged (the state machine refuses what is garbage).
 */
export function stampLeaderTime(entry: Uint8Array, now: number): Uint8Array {
  if (entry.byteLength >= HEADER_BYTES && entry[0] === ENTRY_FORMAT) {
    if (entry[1] !== ENTRY_KINDS.command) return entry;
    const stamped = Uint8Array.prototype.slice.call(entry);
    new DataView(stamped.buffer).setFloat64(TIME_AT, now);
    return stamped;
  }
  return isLegacyCommand(entry) ? envelope("command", entry, now) : entry;
}

/** A msgpack map's first byte: fixmap, map16 or map32. */
function isLegacyCommand(data: Uint8Array): boolean {
  const first = data[0];
  return first !== undefined && ((first >= 0x80 && first <= 0x8f) || first === 0xde || first === 0xdf);
}

/**
 * Throws CommandDecodeError for bytes that are no entry this version understands. A stamped command whose
 * effect depends on the time (it has a top-level `now`) comes back with the leader's time as `now`.
 */
export function decodeEntry(data: Uint8Array): LogEntry {
  if (data[0] === LEGACY_RESTORE) return { kind: "restore", archive: data.subarray(1) };
  if (data[0] !== ENTRY_FORMAT) return { kind: "command", command: decodeCommand(data) };
  if (data.byteLength < HEADER_BYTES) throw new CommandDecodeError("log entry is truncated");
  const kind = KIND_BY_CODE.get(data[1]!);
  if (kind === undefined) throw new CommandDecodeError(`unknown log entry kind ${data[1]}`);
  const body = data.subarray(HEADER_BYTES);
  if (kind === "command") {
    const command = decodeCommand(body);
    const time = new DataView(data.buffer, data.byteOffset, data.byteLength).getFloat64(TIME_AT);
    return {
      kind,
      command: Number.isNaN(time) || !("now" in command) ? command : { ...command, now: time },
    };
  }
  return decodeRestoreBody(kind, body);
}

function decodeRestoreBody(kind: Exclude<EnvelopeKind, "command">, body: Uint8Array): RestoreEntry {
  let fields: unknown;
  try {
    fields = bodyPackr.unpack(body);
  } catch (err) {
    throw new CommandDecodeError(`${kind} entry is not valid msgpack: ${(err as Error).message}`);
  }
  const malformed = () => new CommandDecodeError(`malformed ${kind} entry`);
  if (!Array.isArray(fields) || typeof fields[0] !== "string") throw malformed();
  const [id, a, b] = fields as [string, unknown, unknown];
  switch (kind) {
    case "restore-begin":
    case "restore-abort":
      return { kind, id };
    case "restore-chunk":
      if (!Number.isSafeInteger(a) || !(b instanceof Uint8Array)) throw malformed();
      return { kind, id, seq: a as number, data: b };
    case "restore-commit":
      if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b)) throw malformed();
      return { kind, id, chunks: a as number, bytes: b as number };
  }
}

/**
 * Commands whose effect depends on the time (lock-delay, session and token creation, invalidations, catalog
 * changes that invalidate sessions, namespace deletion). All of them carry it in one top-level `now`,
 * which a stamped entry's time replaces.
 */
export type TimedCommand = Extract<Command, { readonly now: number }>;
