import type { Level } from "level";
import type { Logger } from "pino";
import type { Entry, LogBounds, TermRun } from "../core/types.js";
import { StorageCorruptionError } from "./errors.js";
import { CONF_RANGE, confIndexOfKey, confKey, decodeEntry, ENTRY_RANGE, entryKey } from "./records.js";

export type Db = Level<Buffer, Buffer>;

/** Newest entries `open` hands to the core so a restarted leader replicates its tail from memory. */
const TAIL_ENTRIES = 1024;
const TAIL_BYTES = 4 * 1024 * 1024;

/** What `open` learns of the log without reading it all: its shape, and its newest entries. */
export interface LogShape {
  bounds: LogBounds;
  tail: Entry[];
  /** Indexes of the conf entries after the snapshot, in order. */
  confIndexes: number[];
}

/**
 * Reads the log's shape after snapshot index `base`: the last entries (iterating backwards), the first key,
 * the terms (by bisection: terms never decrease, so O(terms x log(length)) point reads), and the conf entries
 * (through their index). Time and memory grow with the number of terms and conf entries, not with the log.
 *
 * What is checked: every entry read verifies; the tail read is contiguous and the first entry follows the
 * snapshot. A torn last entry (the tail of a write that never completed) is dropped. Entries in between are
 * verified when read back (a damaged one then stops the server, as at open before).
 */
export async function loadLogShape(db: Db, logDir: string, base: number, logger: Logger): Promise<LogShape> {
  const newestFirst: Entry[] = [];
  let bytes = 0;
  let torn: { key: Buffer; reason: string } | undefined;
  for await (const [key, value] of db.iterator({ ...ENTRY_RANGE, reverse: true })) {
    const e = decodeEntry(key, value);
    if (typeof e === "string") {
      // Only the last write can be torn: it was never fsynced completely, so nothing depended on it.
      if (newestFirst.length > 0 || torn) throw new StorageCorruptionError(logDir, e);
      torn = { key, reason: e };
      continue;
    }
    newestFirst.push(e);
    bytes += e.data.length;
    if (newestFirst.length >= TAIL_ENTRIES || bytes >= TAIL_BYTES) break;
  }
  if (torn) {
    logger.warn({ file: logDir, reason: torn.reason }, "dropping torn last log entry");
    await db.del(torn.key, { sync: true });
  }
  const tail = newestFirst.reverse();
  const firstKey = (await db.keys({ ...ENTRY_RANGE, limit: 1 }).all())[0];
  const first = firstKey === undefined ? undefined : decodeEntryIndex(firstKey);
  if (first !== undefined && first !== base + 1) {
    throw new StorageCorruptionError(logDir, `log has entry ${first} where ${base + 1} was expected`);
  }
  let expected = tail[0]?.index ?? base + 1;
  for (const e of tail) {
    if (e.index !== expected) {
      throw new StorageCorruptionError(logDir, `log has entry ${e.index} where ${expected} was expected`);
    }
    expected++;
  }
  const lastIndex = tail.at(-1)?.index ?? base;
  const terms = await termRuns(db, logDir, base + 1, lastIndex, tail);
  const confIndexes: number[] = [];
  const confs: Entry[] = [];
  for await (const key of db.keys({ ...CONF_RANGE, gt: confKey(base), lte: confKey(lastIndex) })) {
    const index = confIndexOfKey(key);
    if (index === undefined) throw new StorageCorruptionError(logDir, "malformed conf index key");
    const e = await readEntry(db, logDir, index);
    if (e.kind !== "conf")
      throw new StorageCorruptionError(logDir, `conf index names entry ${index}, not a conf entry`);
    confIndexes.push(index);
    confs.push(e);
  }
  return { bounds: { lastIndex, terms, confs }, tail, confIndexes };
}

function decodeEntryIndex(key: Buffer): number {
  return key.readUInt32BE(1) * 0x1_0000_0000 + key.readUInt32BE(5);
}

/** The term runs of [first, last], bisecting between known terms (the tail's are known already). */
async function termRuns(
  db: Db,
  logDir: string,
  first: number,
  last: number,
  tail: Entry[],
): Promise<TermRun[]> {
  if (last < first) return [];
  const tailFirst = tail[0]?.index ?? last + 1;
  const termOf = async (i: number): Promise<number> =>
    i >= tailFirst ? tail[i - tailFirst]!.term : (await readEntry(db, logDir, i)).term;
  const runs: TermRun[] = [{ index: first, term: await termOf(first) }];
  // Explicit stack (right half pushed first) rather than recursion: runs come out in index order.
  const stack: [number, number, number, number][] = [[first, runs[0]!.term, last, await termOf(last)]];
  while (stack.length > 0) {
    const [a, ta, b, tb] = stack.pop()!;
    if (tb < ta)
      throw new StorageCorruptionError(logDir, `entry ${b} has term ${tb}, below ${ta} of entry ${a}`);
    if (ta === tb) continue;
    if (b === a + 1) {
      runs.push({ index: b, term: tb });
      continue;
    }
    const m = Math.floor((a + b) / 2);
    const tm = await termOf(m);
    stack.push([m, tm, b, tb], [a, ta, m, tm]);
  }
  return runs;
}

export async function readEntry(db: Db, logDir: string, index: number): Promise<Entry> {
  const value = await db.get(entryKey(index));
  if (value === undefined) throw new StorageCorruptionError(logDir, `log has no entry ${index}`);
  const e = decodeEntry(entryKey(index), value);
  if (typeof e === "string") throw new StorageCorruptionError(logDir, e);
  return e;
}

/** Entries [lo, hi), at least one if any, stopping once `maxBytes` of payload is reached; each verified. */
export async function readEntries(
  db: Db,
  logDir: string,
  lo: number,
  hi: number,
  maxBytes: number,
): Promise<Entry[]> {
  const out: Entry[] = [];
  let bytes = 0;
  for await (const [key, value] of db.iterator({ gte: entryKey(lo), lt: entryKey(hi) })) {
    const e = decodeEntry(key, value);
    if (typeof e === "string") throw new StorageCorruptionError(logDir, e);
    if (e.index !== lo + out.length) {
      throw new StorageCorruptionError(
        logDir,
        `log has entry ${e.index} where ${lo + out.length} was expected`,
      );
    }
    bytes += e.data.length;
    if (out.length > 0 && bytes > maxBytes) break;
    out.push(e);
  }
  return out;
}

/** Upgrades a version 1 log: indexes its conf entries (one pass, once). */
export async function indexConfEntries(db: Db): Promise<void> {
  let batch = db.batch();
  for await (const [key, value] of db.iterator(ENTRY_RANGE)) {
    const e = decodeEntry(key, value);
    // A damaged entry is left for open's checks (or the read that meets it) to report.
    if (typeof e !== "string" && e.kind === "conf") batch.put(confKey(e.index), Buffer.alloc(0));
    if (batch.length >= 10_000) {
      await batch.write();
      batch = db.batch();
    }
  }
  await batch.write({ sync: true });
}
