import { Packr } from "msgpackr";

/**
 * A snapshot restore travels through the Raft log as its own kind of entry: one marker byte, then the
 * archive (the state store's snapshot frames). Commands are msgpack maps, whose first byte is never 0xc1
 * (msgpack's one "never used" code), so the marker cannot be mistaken for a command.
 */
export const RESTORE_MARKER = 0xc1;

export function encodeRestoreEntry(archive: Uint8Array): Uint8Array {
  const entry = new Uint8Array(archive.byteLength + 1);
  entry[0] = RESTORE_MARKER;
  entry.set(archive, 1);
  return entry;
}

export function isRestoreEntry(data: Uint8Array): boolean {
  return data.byteLength > 0 && data[0] === RESTORE_MARKER;
}

const headerPackr = new Packr({ useRecords: false, int64AsType: "bigint", mapsAsObjects: true });

/**
 * The archive of a restore entry, its header rewritten to carry the entry's own Raft index: the restored
 * state then sits at the index the log gave it on every server, and later entries apply above it whatever
 * index the archive was taken at. Malformed framing is left for the store's reader to refuse.
 */
export function archiveAtIndex(entry: Uint8Array, index: number): Uint8Array[] {
  const archive = entry.subarray(1);
  if (archive.byteLength < 4) return [archive];
  const view = new DataView(archive.buffer, archive.byteOffset, archive.byteLength);
  const length = view.getUint32(0);
  if (archive.byteLength < 4 + length) return [archive];
  let header: unknown;
  try {
    header = headerPackr.unpack(archive.subarray(4, 4 + length));
  } catch {
    return [archive];
  }
  if (!Array.isArray(header) || typeof header[2] !== "number") return [archive];
  const rewritten = headerPackr.pack([header[0], header[1], index, ...header.slice(3)]);
  const framed = new Uint8Array(4 + rewritten.byteLength);
  new DataView(framed.buffer).setUint32(0, rewritten.byteLength);
  framed.set(rewritten, 4);
  return [framed, archive.subarray(4 + length)];
}
