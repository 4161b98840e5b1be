// Verifying a saved snapshot before it replaces anything. Consul's snapshots are gzip'd tar archives
// (meta.json, state.bin, SHA256SUMS); when the server sends that shape every checksum is checked, and
// any gzip stream is checked end to end (its CRC and length).
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { isObject, type JsonValue, parseJson } from "./json.js";

export interface SnapshotInfo {
  size: number;
  /** Parsed meta.json when the archive has one. */
  meta: { [key: string]: JsonValue } | undefined;
}

export function verifySnapshot(data: Buffer): SnapshotInfo {
  if (data.length === 0) throw new Error("snapshot is empty");
  const isGzip = data[0] === 0x1f && data[1] === 0x8b;
  if (!isGzip) return { size: data.length, meta: undefined };
  let tar: Buffer;
  try {
    tar = gunzipSync(data);
  } catch (err) {
    throw new Error(`failed to decompress snapshot: ${err instanceof Error ? err.message : String(err)}`);
  }
  const files = readTar(tar);
  if (files === undefined) return { size: data.length, meta: undefined };
  const sums = files.get("SHA256SUMS");
  if (sums !== undefined) {
    for (const line of sums.toString("utf8").split("\n")) {
      const match = /^([0-9a-f]{64})\s+\*?(.+)$/.exec(line.trim());
      if (match === null) continue;
      const content = files.get(match[2]!);
      if (content === undefined) throw new Error(`file missing from archive: ${match[2]}`);
      const actual = createHash("sha256").update(content).digest("hex");
      if (actual !== match[1]) throw new Error(`sha256 hash mismatch for ${match[2]}`);
    }
  }
  const metaFile = files.get("meta.json");
  const meta = metaFile === undefined ? undefined : parseJson(metaFile.toString("utf8"));
  return { size: data.length, meta: isObject(meta) ? meta : undefined };
}

/** The regular files of a ustar archive, or undefined when `buf` is not one. */
function readTar(buf: Buffer): Map<string, Buffer> | undefined {
  const files = new Map<string, Buffer>();
  let offset = 0;
  while (offset + 512 <= buf.length) {
    const header = buf.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) return files;
    if (header.toString("latin1", 257, 262) !== "ustar") return undefined;
    const name = header.toString("utf8", 0, 100).replace(/\0.*$/s, "");
    const size = Number.parseInt(header.toString("latin1", 124, 136).replace(/\0.*$/s, "").trim() || "0", 8);
    const type = header.toString("latin1", 156, 157);
    offset += 512;
    if (!Number.isFinite(size) || offset + size > buf.length)
      throw new Error("snapshot archive is truncated");
    if (type === "0" || type === "\0") files.set(name, buf.subarray(offset, offset + size));
    offset += Math.ceil(size / 512) * 512;
  }
  return files;
}
