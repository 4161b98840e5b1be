// Quorum-loss recovery on real LevelDB directories: the rewrite keeps every entry and term, states the new
// configuration in every conf entry and in the snapshot record, and survives a reopen.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeConfEntry, encodeConfEntry } from "../src/core/conf.js";
import type { ConfState, Entry } from "../src/core/types.js";
import { recoverCluster } from "../src/recovery/recover-cluster.js";
import { RaftStorage } from "../src/storage/raft-storage.js";

const silent = pino({ level: "silent" });
const old: ConfState = { voters: ["a", "b", "c"], learners: [] };

const normal = (index: number, term: number): Entry => ({
  index,
  term,
  kind: "normal",
  data: Buffer.from(`cmd-${index}`),
});
const confEntry = (
  index: number,
  term: number,
  conf: ConfState,
  change: Entry["data"] | null = null,
): Entry => ({
  index,
  term,
  kind: "conf",
  data: change ?? encodeConfEntry({ change: null, conf }),
});

const survivors = [
  { id: "a", address: "10.0.0.1:8300", voter: true },
  { id: "b", address: "10.0.0.2:8300", voter: true },
  { id: "d", address: "10.0.0.4:8300", voter: false },
];
const recovered: ConfState = { voters: ["a", "b"], learners: ["d"] };

describe("recoverCluster", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "cairn-raft-recovery-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function seed(entries: Entry[], commit: number, addresses: Record<string, string> = {}) {
    const s = await RaftStorage.open(dir, silent);
    await s.save({ hardState: { term: 4, vote: "c", commit }, entries });
    await s.saveAddresses(addresses);
    await s.close();
  }

  it("keeps every entry, committed or not, and states the new configuration in each conf entry", async () => {
    const removeC = encodeConfEntry({
      change: { op: "remove", node: "c" },
      conf: { voters: ["a", "b"], learners: [] },
    });
    const log = [
      confEntry(1, 1, old),
      normal(2, 1),
      normal(3, 2),
      confEntry(4, 3, old, removeC),
      normal(5, 3),
      normal(6, 3), // never committed before the outage
    ];
    await seed(log, 4, { a: "10.9.9.1:8300", c: "10.0.0.3:8300" });

    const outcome = await recoverCluster(dir, survivors, silent);
    expect(outcome).toEqual({
      previous: { voters: ["a", "b"], learners: [] },
      conf: recovered,
      lastIndex: 6,
      lastTerm: 3,
      commit: 4,
      snapshotIndex: null,
      confEntriesRewritten: 2,
    });

    const r = await RaftStorage.open(dir, silent);
    const after = r.restored.entries;
    expect(after.map((e) => [e.index, e.term, e.kind])).toEqual(log.map((e) => [e.index, e.term, e.kind]));
    for (const [i, e] of after.entries()) {
      if (e.kind === "conf") expect(decodeConfEntry(e.data)).toEqual({ change: null, conf: recovered });
      else expect(Buffer.from(e.data)).toEqual(Buffer.from(log[i]!.data));
    }
    // Term, vote and commit stay: the survivors' election compares logs exactly as before.
    expect(r.restored.hardState).toEqual({ term: 4, vote: "c", commit: 4 });
    // The file's addresses win over the book's; others stay for servers that may come back by join.
    expect(r.addresses).toEqual({
      a: "10.0.0.1:8300",
      b: "10.0.0.2:8300",
      c: "10.0.0.3:8300",
      d: "10.0.0.4:8300",
    });
    await r.close();
  });

  it("rewrites the snapshot record's configuration so it survives compaction", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.save({
      hardState: { term: 2, vote: null, commit: 5 },
      entries: [confEntry(1, 1, old), normal(2, 1)],
    });
    await s.save({ entries: [normal(3, 2), normal(4, 2), normal(5, 2), normal(6, 2)] });
    const meta = { index: 5, term: 2, conf: old };
    const writer = await s.createSnapshotWriter(meta);
    await writer.write(Buffer.from("state machine through 5"));
    await s.compact(meta, await writer.commit(), meta.index);
    await s.close();

    const outcome = await recoverCluster(dir, survivors, silent);
    expect(outcome).toMatchObject({
      previous: old,
      lastIndex: 6,
      lastTerm: 2,
      snapshotIndex: 5,
      confEntriesRewritten: 0,
    });

    const r = await RaftStorage.open(dir, silent);
    expect(r.restored.snapshot).toEqual({ index: 5, term: 2, conf: recovered });
    expect(r.snapshot?.path).toMatch(/snapshot-2-5\.bin$/);
    expect(r.restored.entries.map((e) => e.index)).toEqual([6]);
    await r.close();
  });

  it("gives an empty log the bootstrap entry every other log starts with", async () => {
    const s = await RaftStorage.open(dir, silent);
    await s.close();
    const outcome = await recoverCluster(dir, survivors, silent);
    expect(outcome).toMatchObject({ lastIndex: 1, lastTerm: 1, commit: 1 });
    const r = await RaftStorage.open(dir, silent);
    expect(r.restored.hardState).toEqual({ term: 1, vote: null, commit: 1 });
    expect(r.restored.entries).toHaveLength(1);
    expect(decodeConfEntry(r.restored.entries[0]!.data)).toEqual({ change: null, conf: recovered });
    await r.close();
  });

  it("gives survivors with logs of different lengths identical entries wherever index and term agree", async () => {
    const shared = [
      confEntry(1, 1, old),
      normal(2, 1),
      confEntry(3, 2, { voters: ["a", "b", "c", "e"], learners: [] }),
    ];
    const dirs = [dir, await mkdtemp(join(tmpdir(), "cairn-raft-recovery-"))];
    const logs = [
      [...shared, normal(4, 2)],
      [...shared, normal(4, 2), normal(5, 2), normal(6, 2)],
    ];
    try {
      for (const [i, d] of dirs.entries()) {
        const s = await RaftStorage.open(d, silent);
        await s.save({ hardState: { term: 2, vote: null, commit: 3 }, entries: logs[i]! });
        await s.close();
        await recoverCluster(d, survivors, silent);
      }
      const read = async (d: string) => {
        const s = await RaftStorage.open(d, silent);
        const out = s.restored.entries.map((e) => [
          e.index,
          e.term,
          e.kind,
          Buffer.from(e.data).toString("hex"),
        ]);
        await s.close();
        return out;
      };
      const [short, long] = [await read(dirs[0]!), await read(dirs[1]!)];
      expect(long.slice(0, short.length)).toEqual(short);
    } finally {
      await rm(dirs[1]!, { recursive: true, force: true });
    }
  });

  it("refuses a configuration without a voter or with a server twice, and changes nothing", async () => {
    await seed([confEntry(1, 1, old), normal(2, 1)], 2);
    await expect(recoverCluster(dir, [{ id: "a", address: "x:1", voter: false }], silent)).rejects.toThrow(
      /no voter/,
    );
    await expect(
      recoverCluster(
        dir,
        [
          { id: "a", address: "x:1", voter: true },
          { id: "a", address: "x:2", voter: true },
        ],
        silent,
      ),
    ).rejects.toThrow(/twice/);
    const r = await RaftStorage.open(dir, silent);
    expect(decodeConfEntry(r.restored.entries[0]!.data).conf).toEqual(old);
    await r.close();
  });

  it("is idempotent: a second run (a crash before peers.json was deleted) finds the same state", async () => {
    await seed([confEntry(1, 1, old), normal(2, 1), normal(3, 1)], 2);
    await recoverCluster(dir, survivors, silent);
    const again = await recoverCluster(dir, survivors, silent);
    expect(again).toMatchObject({ previous: recovered, conf: recovered, lastIndex: 3, commit: 2 });
  });
});
