import { describe, expect, it } from "vitest";
import {
  type ApplyResult,
  type Command,
  encodeCommandEntry,
  encodeRestoreEntry,
  LogMachine,
  SnapshotFormatError,
  StateStore,
  streamRestore,
} from "../src/index.js";
import { bytes } from "./helpers.js";

const set = (key: string, value: string): Command => ({
  v: 1,
  type: "kv.set",
  key,
  value: bytes(value),
  flags: 0n,
});

/** An archive (what GET /v1/snapshot serves) of `keys` keys with values of `size` bytes. */
function archiveOf(keys: number, size = 8, prefix = "restored/"): Buffer {
  const store = new StateStore();
  for (let i = 0; i < keys; i++) store.applyCommand(i + 1, set(`${prefix}${i}`, "v".repeat(size)));
  return Buffer.concat([...store.snapshot()]);
}

const snapshotOf = (m: LogMachine): Buffer => Buffer.concat([...m.snapshot()]);
const stateOf = (m: LogMachine): Buffer => Buffer.concat([...m.store.snapshot()]);

/** Cuts an archive into `n` chunk entries of restore `id`, with its begin and commit. */
function restoreLog(id: string, archive: Buffer, n: number): Uint8Array[] {
  const size = Math.ceil(archive.byteLength / n);
  const chunks = Array.from({ length: n }, (_, i) => archive.subarray(i * size, (i + 1) * size));
  return [
    encodeRestoreEntry({ kind: "restore-begin", id }),
    ...chunks.map((data, seq) => encodeRestoreEntry({ kind: "restore-chunk", id, seq, data })),
    encodeRestoreEntry({ kind: "restore-commit", id, chunks: n, bytes: archive.byteLength }),
  ];
}

function applyAll(m: LogMachine, log: readonly Uint8Array[], from = 1): ApplyResult[] {
  return log.map((entry, i) => m.apply(from + i, entry).result);
}

describe("a restore streamed through the log", () => {
  const archive = archiveOf(500);
  const before = [encodeCommandEntry(set("kept/a", "1")), encodeCommandEntry(set("kept/b", "2"))];

  it("stages the chunks and swaps the whole state in at the commit, at the commit's index", () => {
    const m = new LogMachine();
    applyAll(m, before);
    const [begin, ...rest] = restoreLog("r1", archive, 4);
    const commit = rest.pop()!;
    const log = [begin!, ...rest];
    expect(applyAll(m, log, 3)).toEqual(log.map(() => true));
    // Nothing shows before the commit, and writes in between are applied as usual.
    expect(m.store.view().kvKeys("").value).toEqual(["kept/a", "kept/b"]);
    expect(m.apply(8, encodeCommandEntry(set("kept/c", "3"))).result).toBe(true);
    expect(m.stagingId).toBe("r1");
    expect(m.apply(9, commit)).toEqual({ kind: "restored", result: true });
    expect(m.stagingId).toBeUndefined();
    expect(m.store.index).toBe(9);
    expect(m.store.view().kvKeys("kept/").value).toEqual([]);
    expect(m.store.view().kvKeys("restored/").value).toHaveLength(500);
    // The log carries on above the restore.
    m.apply(10, encodeCommandEntry(set("after", "x")));
    expect(m.store.view().kvGet("after").value?.ModifyIndex).toBe(10);
  });

  it("an abort drops the staging; its later chunks and commit are refused and change nothing", () => {
    const m = new LogMachine();
    applyAll(m, before);
    const state = stateOf(m);
    const log = restoreLog("r1", archive, 3);
    applyAll(m, log.slice(0, 2), 3);
    expect(m.apply(5, encodeRestoreEntry({ kind: "restore-abort", id: "r1" })).result).toBe(true);
    expect(m.stagingId).toBeUndefined();
    const late = applyAll(m, log.slice(2), 6);
    for (const result of late) expect(result).toMatchObject({ kind: "conflict" });
    expect(stateOf(m).equals(state)).toBe(true);
  });

  it("a new begin supersedes the staged restore; an abort of another id leaves it alone", () => {
    const m = new LogMachine();
    const first = restoreLog("r1", archiveOf(3, 8, "first/"), 2);
    const second = restoreLog("r2", archiveOf(4, 8, "second/"), 2);
    let index = 1;
    m.apply(index++, first[0]!);
    m.apply(index++, first[1]!);
    m.apply(index++, second[0]!);
    expect(m.apply(index++, first[2]!).result).toMatchObject({ kind: "conflict" });
    m.apply(index++, encodeRestoreEntry({ kind: "restore-abort", id: "r1" }));
    for (const entry of second.slice(1)) expect(m.apply(index++, entry).result).toBe(true);
    expect(m.apply(index++, first[3]!).result).toMatchObject({ kind: "conflict" });
    expect(m.store.view().kvKeys("").value).toEqual(["second/0", "second/1", "second/2", "second/3"]);
  });

  it("a lost or repeated chunk fails the restore as a whole", () => {
    const m = new LogMachine();
    const [begin, c0, c1, , commit] = restoreLog("r1", archive, 3);
    applyAll(m, [begin!, c0!]);
    expect(m.apply(3, c1!).result).toBe(true);
    expect(m.apply(4, c1!).result).toMatchObject({ kind: "conflict" });
    expect(m.apply(5, commit!).result).toMatchObject({ kind: "conflict" });
    expect(m.store.view().kvKeys("").value).toEqual([]);
  });

  it("a commit of a bad archive is refused with the reason (400) and changes nothing", () => {
    const m = new LogMachine();
    applyAll(m, before);
    const state = stateOf(m);
    const bad = Buffer.concat([archive.subarray(0, 1000), archive.subarray(2000)]);
    const results = applyAll(m, restoreLog("r1", bad, 2), 3);
    expect(results.at(-1)).toMatchObject({ kind: "invalid" });
    expect(stateOf(m).equals(state)).toBe(true);
    expect(m.stagingId).toBeUndefined();
  });

  it("a Raft snapshot taken mid-restore carries the staging: installing it and going on gives the same state", async () => {
    const log = [...before, ...restoreLog("r1", archive, 5), encodeCommandEntry(set("after", "x"))];
    const straight = new LogMachine();
    applyAll(straight, log);
    for (const cut of [3, 4, 6]) {
      const first = new LogMachine();
      applyAll(first, log.slice(0, cut));
      expect(first.stagingId).toBe("r1");
      const snap = snapshotOf(first);
      // Fed back in awkward 1000-byte pieces, as a Raft snapshot file streams.
      const pieces = Array.from({ length: Math.ceil(snap.byteLength / 1000) }, (_, i) =>
        snap.subarray(i * 1000, (i + 1) * 1000),
      );
      const resumed = new LogMachine();
      await resumed.restore(pieces);
      expect(resumed.stagingId).toBe("r1");
      expect(snapshotOf(resumed).equals(snap)).toBe(true);
      applyAll(resumed, log.slice(cut), cut + 1);
      expect(snapshotOf(resumed).equals(snapshotOf(straight))).toBe(true);
    }
    expect(straight.store.view().kvKeys("restored/").value).toHaveLength(500);
  });

  it("replaying the same log gives identical state and identical Raft snapshots", () => {
    const log = [
      ...before,
      ...restoreLog("r1", archive, 3),
      ...restoreLog("r2", archiveOf(7), 1).slice(0, 2),
    ];
    const a = new LogMachine();
    const b = new LogMachine();
    applyAll(a, log);
    applyAll(b, log);
    expect(snapshotOf(a).equals(snapshotOf(b))).toBe(true);
    expect(a.stagingId).toBe("r2");
  });

  it("a user archive with staging frames after its end is refused (only Raft snapshots carry them)", async () => {
    const m = new LogMachine();
    applyAll(m, restoreLog("r1", archive, 2).slice(0, 2));
    await expect(new StateStore().restore([snapshotOf(m)])).rejects.toThrow(SnapshotFormatError);
    // A Raft snapshot of an earlier version (no staging) restores as it always did.
    const old = new LogMachine();
    await old.restore([archive]);
    expect(old.stagingId).toBeUndefined();
    expect(old.store.view().kvKeys("restored/").value).toHaveLength(500);
  });
});

describe("streamRestore", () => {
  /** A proposer that applies each entry at the next index of `m`, as the log would. */
  function proposer(m: LogMachine) {
    const proposed: Uint8Array[] = [];
    return {
      proposed,
      propose: async (entry: Uint8Array): Promise<ApplyResult> => {
        proposed.push(entry);
        return m.apply(m.store.index + proposed.length, entry).result;
      },
    };
  }

  it("cuts the archive into chunk entries of at most chunkBytes and commits them", async () => {
    const archive = archiveOf(300, 100);
    const m = new LogMachine();
    const p = proposer(m);
    // The body arrives in pieces that do not line up with the chunks.
    const pieces = Array.from({ length: Math.ceil(archive.byteLength / 777) }, (_, i) =>
      archive.subarray(i * 777, (i + 1) * 777),
    );
    await streamRestore(pieces, p.propose, { id: "r", chunkBytes: 4096 });
    expect(p.proposed.length).toBe(2 + Math.ceil(archive.byteLength / 4096));
    for (const entry of p.proposed) expect(entry.byteLength).toBeLessThan(4096 + 100);
    expect(m.store.view().kvKeys("restored/").value).toHaveLength(300);
  });

  it("a bad archive is refused by its commit: a SnapshotFormatError, the staging dropped, nothing changed", async () => {
    const m = new LogMachine();
    m.apply(1, encodeCommandEntry(set("keep", "1")));
    const state = stateOf(m);
    const archive = archiveOf(100);
    const truncated = archive.subarray(0, archive.byteLength - 3);
    const p = proposer(m);
    await expect(streamRestore([truncated], p.propose, { chunkBytes: 1024 })).rejects.toThrow(
      /snapshot stream is truncated/,
    );
    expect(p.proposed.length).toBeGreaterThan(3);
    expect(m.stagingId).toBeUndefined();
    expect(m.store.view().kvKeys("").value).toEqual(["keep"]);
    expect(stateOf(m).equals(state)).toBe(true);
  });

  it("nothing reaches the log for an upload whose header is no snapshot's", async () => {
    const m = new LogMachine();
    for (const body of [
      [],
      [bytes("not a snapshot")],
      [bytes("{}\n"), bytes("more")],
      [archiveOf(1).subarray(0, 10)],
    ]) {
      const p = proposer(m);
      await expect(streamRestore(body, p.propose)).rejects.toThrow(SnapshotFormatError);
      expect(p.proposed).toEqual([]);
    }
  });

  it("a restore superseded while it streams fails, and leaves the other restore staged", async () => {
    const m = new LogMachine();
    const p = proposer(m);
    let step = 0;
    const propose = async (entry: Uint8Array) => {
      // Another restore begins between this one's chunks.
      if (step++ === 2) await p.propose(encodeRestoreEntry({ kind: "restore-begin", id: "other" }));
      return p.propose(entry);
    };
    await expect(streamRestore([archiveOf(200)], propose, { id: "mine", chunkBytes: 1024 })).rejects.toThrow(
      /no longer in progress/,
    );
    expect(m.stagingId).toBe("other");
    expect(m.store.view().kvKeys("").value).toEqual([]);
  });
});
