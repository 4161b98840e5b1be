import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Level } from "level";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeConfEntry } from "../../src/core/conf.js";
import type { Entry, SnapshotMeta } from "../../src/core/types.js";
import { StorageCorruptionError, StorageVersionError } from "../../src/storage/errors.js";
import { RaftStorage } from "../../src/storage/raft-storage.js";
import { CONF_RANGE, confKey, entryIndexOfKey, entryKey, KEY_VERSION } from "../../src/storage/records.js";

const silent = pino({ level: "silent" });

function entry(index: number, term: number, text = `cmd-${index}`): Entry {
  return { index, term, kind: "normal", data: Buffer.from(text) };
}

function confEntry(index: number, term: number): Entry {
  return { index, term, kind: "conf", data: encodeConfEntry({ change: null, conf }) };
}

function entries(from: number, to: number, term: number): Entry[] {
  const out: Entry[] = [];
  for (let i = from; i <= to; i++) out.push(entry(i, term));
  return out;
}

const conf = { voters: ["a", "b", "c"], learners: [] };

/** A logger that records warnings, to check what a start reports. */
function recordingLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

async function withRawDb(dir: string, fn: (db: Level<Buffer, Buffer>) => Promise<void>): Promise<void> {
  const db = new Level<Buffer, Buffer>(join(dir, "log"), { keyEncoding: "buffer", valueEncoding: "buffer" });
  await db.open();
  try {
    await fn(db);
  } finally {
    await db.close();
  }
}

async function writeSnapshot(storage: RaftStorage, meta: SnapshotMeta, bytes: Buffer) {
  const writer = await storage.createSnapshotWriter(meta);
  await writer.write(bytes);
  return writer.commit();
}

describe("RaftStorage", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "cairn-raft-storage-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("starts empty and round-trips hard state and entries", async () => {
    const s = await RaftStorage.open(dir, silent);
    expect(s.restored).toEqual({
      hardState: { term: 0, vote: null, commit: 0 },
      snapshot: null,
      entries: [],
      bounds: { lastIndex: 0, terms: [], confs: [] },
    });
    const conflictFree = [entry(1, 1), { index: 2, term: 1, kind: "conf", data: new Uint8Array() } as Entry];
    await s.save({ hardState: { term: 1, vote: "b", commit: 1 }, entries: conflictFree });
    await s.save({ entries: [entry(3, 2, "x".repeat(10_000))] });
    await s.close();

    const r = await RaftStorage.open(dir, silent);
    expect(r.restored.hardState).toEqual({ term: 1, vote: "b", commit: 1 });
    expect(r.restored.entries.map((e) => [e.index, e.term, e.kind, Buffer.from(e.data).toString()])).toEqual([
      [1, 1, "normal", "cmd-1"],
      [2, 1, "conf", ""],
      [3, 2, "normal", "x".repeat(10_000)],
    ]);
    expect([r.firstIndex, r.lastIndex]).toEqual([1, 3]);
    await r.close();
  });

  it("fsyncs entries, terms and votes, but not a commit index on its own", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ hardState: { term: 1, vote: "a", commit: 0 }, entries: [] });
    await s.save({ hardState: { term: 1, vote: "a", commit: 0 }, entries: entries(1, 3, 1) });
    await s.save({ hardState: { term: 1, vote: "a", commit: 3 }, entries: [] });
    expect(s.stats).toEqual({ syncedWrites: 2, entriesWritten: 3 });
    await s.close();
    const r = await RaftStorage.open(dir, silent);
    expect(r.restored.hardState.commit).toBe(3);
    await r.close();
  });

  it("replaces a conflicting suffix", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ entries: entries(1, 6, 1) });
    await s.save({ entries: [entry(3, 2, "new-3"), entry(4, 2, "new-4")] });
    expect(s.lastIndex).toBe(4);
    await s.close();

    const r = await RaftStorage.open(dir, silent);
    expect(r.restored.entries.map((e) => `${e.index}/${e.term}/${Buffer.from(e.data)}`)).toEqual([
      "1/1/cmd-1",
      "2/1/cmd-2",
      "3/2/new-3",
      "4/2/new-4",
    ]);
    await r.close();
  });

  it("keeps the trailing entries a compaction is told to keep, until a restart starts after the snapshot", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ hardState: { term: 1, vote: "a", commit: 10 }, entries: entries(1, 10, 1) });
    const meta: SnapshotMeta = { index: 8, term: 1, conf };
    await s.compact(meta, await writeSnapshot(s, meta, Buffer.from("state@8")), 5);
    expect(s.firstIndex).toBe(6);
    // A follower at 5 is served from the log, entries the snapshot covers included.
    expect((await s.entries(6, 11, 1 << 20)).map((e) => e.index)).toEqual([6, 7, 8, 9, 10]);
    expect(await s.entries(5, 11, 1 << 20)).toEqual([]);
    await s.save({ entries: [entry(11, 1)] });
    await s.close();

    const r = await RaftStorage.open(dir, silent);
    expect(r.restored.snapshot).toEqual(meta);
    expect(r.restored.entries.map((e) => e.index)).toEqual([9, 10, 11]);
    expect(r.firstIndex).toBe(9);
    expect(await r.entries(6, 12, 1 << 20)).toEqual([]);
    await r.close();
    // And the entries it dropped stay dropped.
    const again = await RaftStorage.open(dir, silent);
    expect(again.restored.entries.map((e) => e.index)).toEqual([9, 10, 11]);
    await again.close();
  });

  it("drops compacted entries from the disk by range, done by the time close returns", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ hardState: { term: 1, vote: "a", commit: 200 }, entries: entries(1, 200, 1) });
    const first: SnapshotMeta = { index: 120, term: 1, conf };
    await s.compact(first, await writeSnapshot(s, first, Buffer.from("state@120")), 100);
    const second: SnapshotMeta = { index: 190, term: 1, conf };
    await s.compact(second, await writeSnapshot(s, second, Buffer.from("state@190")), 150);
    expect(s.firstIndex).toBe(151);
    expect((await s.entries(151, 154, 1 << 20)).map((e) => e.index)).toEqual([151, 152, 153]);
    await s.close();
    await withRawDb(dir, async (db) => {
      const left: number[] = [];
      for await (const key of db.keys({ gte: entryKey(0), lte: entryKey(1_000) }))
        left.push(entryIndexOfKey(key)!);
      expect(left[0]).toBe(151);
      expect(left).toHaveLength(50);
    });
  });

  it("rejects entries that do not attach to the log", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ entries: entries(1, 2, 1) });
    await expect(s.save({ entries: [entry(5, 1)] })).rejects.toThrow(/do not attach/);
    await s.close();
  });

  it("compacts: records the snapshot, drops covered entries, keeps one snapshot file", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ hardState: { term: 1, vote: "a", commit: 10 }, entries: entries(1, 10, 1) });
    const first: SnapshotMeta = { index: 4, term: 1, conf };
    await s.compact(first, await writeSnapshot(s, first, Buffer.from("state@4")), first.index);
    const second: SnapshotMeta = { index: 6, term: 1, conf };
    await s.compact(second, await writeSnapshot(s, second, Buffer.from("state@6")), second.index);
    expect(s.firstIndex).toBe(7);
    await s.close();

    const r = await RaftStorage.open(dir, silent);
    expect(r.restored.snapshot).toEqual(second);
    expect(r.restored.entries.map((e) => e.index)).toEqual([7, 8, 9, 10]);
    expect(r.snapshot?.path).toBe(join(dir, "snapshots", "snapshot-1-6.bin"));
    expect(await readdir(join(dir, "snapshots"))).toEqual(["snapshot-1-6.bin"]);
    await r.close();
  });

  it("installs a snapshot received from the leader, replacing the whole log", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ hardState: { term: 1, vote: null, commit: 3 }, entries: entries(1, 5, 1) });
    const meta: SnapshotMeta = { index: 20, term: 3, conf };
    s.noteReceivedSnapshot(await writeSnapshot(s, meta, Buffer.alloc(100_000, 7)));
    await s.save({ snapshot: meta, hardState: { term: 3, vote: null, commit: 20 }, entries: [entry(21, 3)] });
    await s.close();

    const r = await RaftStorage.open(dir, silent);
    expect(r.restored.snapshot).toEqual(meta);
    expect(r.restored.hardState.commit).toBe(20);
    expect(r.restored.entries.map((e) => e.index)).toEqual([21]);
    await r.close();
  });

  it("refuses to record a snapshot whose file never arrived", async () => {
    const s = await RaftStorage.open(dir, silent);
    await expect(s.save({ snapshot: { index: 9, term: 2, conf }, entries: [] })).rejects.toThrow(
      /never received/,
    );
    await s.close();
  });

  it("drops a torn last entry, logging it", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ hardState: { term: 1, vote: null, commit: 3 }, entries: entries(1, 5, 1) });
    await s.close();
    await withRawDb(dir, (db) => db.put(entryKey(5), Buffer.from([1, 2, 3])));

    const { logger, lines } = recordingLogger();
    const r = await RaftStorage.open(dir, logger);
    expect(r.restored.entries.map((e) => e.index)).toEqual([1, 2, 3, 4]);
    expect(lines).toEqual([expect.objectContaining({ msg: "dropping torn last log entry" })]);
    await r.save({ entries: [entry(5, 2)] });
    await r.close();

    const again = await RaftStorage.open(dir, silent);
    expect(again.restored.entries.at(-1)).toMatchObject({ index: 5, term: 2 });
    await again.close();
  });

  it("refuses to start on a corrupt entry before the tail, naming the file", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ entries: entries(1, 5, 1) });
    await s.close();
    await withRawDb(dir, async (db) => {
      const good = await db.get(entryKey(3));
      good![good!.length - 1]! ^= 0xff;
      await db.put(entryKey(3), good!);
    });
    const err = await RaftStorage.open(dir, silent).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageCorruptionError);
    expect((err as Error).message).toContain(join(dir, "log"));
    expect((err as Error).message).toContain("entry 3 fails its checksum");
  });

  it("refuses to start on a gap in the log", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ entries: entries(1, 5, 1) });
    await s.close();
    await withRawDb(dir, (db) => db.del(entryKey(3)));
    await expect(RaftStorage.open(dir, silent)).rejects.toThrow(/entry 4 where 3 was expected/);
  });

  it("refuses to start when the snapshot file is damaged, naming it", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ entries: entries(1, 3, 1) });
    const meta: SnapshotMeta = { index: 2, term: 1, conf };
    await s.compact(meta, await writeSnapshot(s, meta, Buffer.from("state@2")), meta.index);
    await s.close();
    const file = join(dir, "snapshots", "snapshot-1-2.bin");
    await writeFile(file, "state@X");
    const err = await RaftStorage.open(dir, silent).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageCorruptionError);
    expect((err as Error).message).toContain(file);
  });

  it("refuses a data directory of an unknown format version", async () => {
    await (await RaftStorage.open(dir, silent)).close();
    await withRawDb(dir, (db) => db.put(KEY_VERSION, Buffer.from("99")));
    const err = await RaftStorage.open(dir, silent).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageVersionError);
    expect((err as Error).message).toContain(join(dir, "log"));
    expect((err as Error).message).toContain('"99"');
  });

  it("refuses a LevelDB directory that holds something other than a Cairn log", async () => {
    await withRawDb(dir, (db) => db.put(Buffer.from("foreign"), Buffer.from("data")));
    await expect(RaftStorage.open(dir, silent)).rejects.toBeInstanceOf(StorageVersionError);
  });

  it("reads ranges back, bounded by bytes, and nothing that was compacted", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ entries: entries(1, 10, 1) });
    expect((await s.entries(3, 6, 1 << 20)).map((e) => e.index)).toEqual([3, 4, 5]);
    // "cmd-N" is 5 bytes: two fit in 10, and one is always returned.
    expect((await s.entries(3, 11, 10)).map((e) => e.index)).toEqual([3, 4]);
    expect((await s.entries(3, 11, 0)).map((e) => e.index)).toEqual([3]);
    expect((await s.entries(9, 99, 1 << 20)).map((e) => e.index)).toEqual([9, 10]);
    const meta: SnapshotMeta = { index: 5, term: 1, conf };
    await s.compact(meta, await writeSnapshot(s, meta, Buffer.from("state@5")), meta.index);
    expect(await s.entries(3, 8, 1 << 20)).toEqual([]);
    await s.close();
  });

  it("names a gap met while reading back", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ entries: entries(1, 3000, 1) });
    await s.close();
    await withRawDb(dir, (db) => db.del(entryKey(10)));
    // Open reads only the newest entries, so the gap shows when the range is read.
    const r = await RaftStorage.open(dir, silent);
    await expect(r.entries(5, 20, 1 << 20)).rejects.toThrow(/entry 11 where 10 was expected/);
    await r.close();
  });

  it("keeps the index of conf entries through conflicts, compaction and installed snapshots", async () => {
    const confIndexes = async () => {
      const keys: number[] = [];
      await withRawDb(dir, async (db) => {
        for await (const k of db.keys(CONF_RANGE)) keys.push(k.readUInt32BE(5));
      });
      return keys;
    };
    let s = await RaftStorage.open(dir, silent);
    await s.save({
      entries: [confEntry(1, 1), ...entries(2, 4, 1), confEntry(5, 1), entry(6, 1), confEntry(7, 1)],
    });
    // The leader replaced 6 onwards: the conf entry at 7 went with it.
    await s.save({ entries: [entry(6, 2), entry(7, 2)] });
    await s.close();
    expect(await confIndexes()).toEqual([1, 5]);
    s = await RaftStorage.open(dir, silent);
    expect(s.restored.bounds.confs.map((e) => e.index)).toEqual([1, 5]);
    expect(s.restored.bounds.terms).toEqual([
      { index: 1, term: 1 },
      { index: 6, term: 2 },
    ]);
    const meta: SnapshotMeta = { index: 3, term: 1, conf };
    await s.compact(meta, await writeSnapshot(s, meta, Buffer.from("state@3")), meta.index);
    await s.close();
    expect(await confIndexes()).toEqual([5]);
    s = await RaftStorage.open(dir, silent);
    expect(s.restored.bounds.confs.map((e) => e.index)).toEqual([5]);
    const installed: SnapshotMeta = { index: 20, term: 3, conf };
    s.noteReceivedSnapshot(await writeSnapshot(s, installed, Buffer.from("state@20")));
    await s.save({ snapshot: installed, entries: [confEntry(21, 3)] });
    await s.close();
    expect(await confIndexes()).toEqual([21]);
  });

  it("upgrades a version 1 log by indexing its conf entries once", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ entries: [confEntry(1, 1), ...entries(2, 4, 1), confEntry(5, 2)] });
    await s.close();
    await withRawDb(dir, async (db) => {
      await db.del(confKey(1));
      await db.del(confKey(5));
      await db.put(KEY_VERSION, Buffer.from("1"));
    });
    const r = await RaftStorage.open(dir, silent);
    expect(r.restored.bounds.confs.map((e) => e.index)).toEqual([1, 5]);
    await r.close();
    await withRawDb(dir, async (db) => expect((await db.get(KEY_VERSION))?.toString()).toBe("2"));
  });

  it("removes leftovers of interrupted snapshot writes at start", async () => {
    const s = await RaftStorage.open(dir, silent);
    const writer = await s.createSnapshotWriter({ index: 1, term: 1 });
    await writer.write(Buffer.from("partial"));
    await s.close();
    await (await RaftStorage.open(dir, silent)).close();
    expect(await readdir(join(dir, "snapshots"))).toEqual([]);
  });
});
