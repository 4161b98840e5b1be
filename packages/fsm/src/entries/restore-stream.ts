import { randomUUID } from "node:crypto";
import type { ApplyResult } from "../commands/results.js";
import { SnapshotFormatError } from "../snapshot/format.js";
import { SnapshotReader } from "../snapshot/read.js";
import { isApplyError } from "../store/errors.js";
import { encodeRestoreEntry } from "./envelope.js";

/**
 * Archive bytes per chunk entry: at most one chunk fills a Raft append message (maxAppendBytes is 1 MiB),
 * far below what a peer connection buffers, and a 1 GiB archive is still only a thousand entries.
 */
export const RESTORE_CHUNK_BYTES = 1024 * 1024;

export interface StreamRestoreOptions {
  /** Defaults to a random UUID. */
  readonly id?: string;
  readonly chunkBytes?: number;
}

/**
 * Streams an archive into the log through `propose` (which commits an entry and returns what the state
 * machine answered): restore-begin, chunk entries in order, and restore-commit, each waiting for the
 * previous one. Its header is checked before anything is proposed and the whole archive before the commit
 * is (a SnapshotFormatError); the commit checks it again on every server alike, refusing a bad archive with
 * nothing changed. On any failure an abort entry drops what was staged (best effort: if it cannot commit
 * either, the staging stays until the next restore's begin replaces it, and never shows).
 * Memory: one chunk and the frame being checked here; the staged archive once in each server's state machine.
 */
export async function streamRestore(
  archive: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  propose: (entry: Uint8Array) => Promise<ApplyResult>,
  options: StreamRestoreOptions = {},
): Promise<void> {
  const id = options.id ?? randomUUID();
  let proposed = false;
  try {
    for await (const entry of restoreEntries(archive, id, options.chunkBytes ?? RESTORE_CHUNK_BYTES)) {
      proposed = true;
      const result = await propose(entry);
      if (!isApplyError(result)) continue;
      if (result.kind === "invalid") throw new SnapshotFormatError(result.error);
      throw new Error(result.error);
    }
  } catch (err) {
    if (proposed) await propose(encodeRestoreEntry({ kind: "restore-abort", id })).catch(() => undefined);
    throw err;
  }
}

async function* restoreEntries(
  archive: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  id: string,
  chunkBytes: number,
): AsyncGenerator<Uint8Array> {
  // The whole archive is checked here, as it streams in and before the commit is proposed: a damaged frame
  // can take seconds to decode (corrupt bytes read as millions of tiny msgpack values), and in the commit
  // that would stall every server's apply at once, long enough to lose the leader. The commit checks again,
  // as a backstop. The check keeps no tables, only the frame being read.
  const check = new SnapshotReader({ checkOnly: true });
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let seq = 0;
  let bytes = 0;
  let begun = false;
  const chunk = (length: number): Uint8Array => {
    // A piece larger than a chunk (a body read whole) is cut without copying it again and again.
    const joined = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    const rest = joined.subarray(length);
    pending = rest.byteLength > 0 ? [rest] : [];
    pendingBytes = rest.byteLength;
    bytes += length;
    return encodeRestoreEntry({ kind: "restore-chunk", id, seq: seq++, data: joined.subarray(0, length) });
  };
  for await (const piece of archive) {
    pending.push(piece);
    pendingBytes += piece.byteLength;
    check.push(piece);
    // Begun once the header is a snapshot's: an empty, oversized or foreign upload never reaches the log.
    if (!check.started) continue;
    if (!begun) {
      begun = true;
      yield encodeRestoreEntry({ kind: "restore-begin", id });
    }
    while (pendingBytes >= chunkBytes) yield chunk(chunkBytes);
  }
  if (!check.started) throw new SnapshotFormatError("snapshot stream is truncated");
  check.finish();
  if (pendingBytes > 0) yield chunk(pendingBytes);
  yield encodeRestoreEntry({ kind: "restore-commit", id, chunks: seq, bytes });
}
