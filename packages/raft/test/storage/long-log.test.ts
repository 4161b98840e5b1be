import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measureRestart, writeLongLog } from "../../../../scripts/bench/lib/raft-log.js";
import { RaftStorage } from "../../src/storage/raft-storage.js";

const silent = pino({ level: "silent" });
// The 10-million-entry run is `node --import tsx scripts/bench/raft-restart.ts` (README, Benchmarks).
const SHORT = 2_000;
const LONG = 200_000;

/** Polls until `cond` holds or `ms` pass. */
async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("a restart over a long log", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "cairn-long-log-"));
    await writeLongLog(join(root, "short"), SHORT);
    await writeLongLog(join(root, "long"), LONG);
  }, 120_000);
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("open reads the log's shape, not its entries", async () => {
    const s = await RaftStorage.open(join(root, "long"), silent);
    try {
      const { bounds, entries } = s.restored;
      expect(bounds.lastIndex).toBe(LONG);
      // Three terms: three runs, found by bisection; the bootstrap conf entry through its index.
      expect(bounds.terms.map((r) => r.term)).toEqual([1, 2, 3]);
      expect(bounds.terms[1]!.index).toBe(1 + Math.ceil(LONG / 3));
      expect(bounds.confs.map((e) => e.index)).toEqual([1]);
      expect(entries.length).toBeLessThanOrEqual(1024);
      expect(entries.at(-1)?.index).toBe(LONG);
      const read = await s.entries(LONG / 2, LONG, 1 << 20);
      expect(read[0]?.index).toBe(LONG / 2);
      expect(read.every((e, k) => e.index === LONG / 2 + k)).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("starts in the same heap and about the same time at 100x the log length", async () => {
    // Warm up module loading and the JIT so the first measure is not charged for them.
    await measureRestart(join(root, "short"));
    const short = await measureRestart(join(root, "short"));
    const long = await measureRestart(join(root, "long"));
    expect(long.startHeap).toBeLessThan(short.startHeap + 8 * 1024 * 1024);
    expect(long.startHeap).toBeLessThan(16 * 1024 * 1024);
    // Generous: the machine is shared, but reading 100x the entries would take far longer.
    expect(long.startMs).toBeLessThan(short.startMs * 5 + 1000);
  }, 120_000);

  it("applies the committed log after a restart in order, reading it back in bounded ranges", async () => {
    await measureRestart(
      join(root, "short"),
      async (_node, machine) => {
        await until(() => machine.lastIndex === SHORT, 60_000, "the log to be applied");
        expect(machine.outOfOrder).toBe(0);
        // Entry 1 is the bootstrap conf entry; every other one is a command, each applied once.
        expect(machine.applied).toBe(SHORT - 1);
      },
      { maxEntries: 64, maxBytes: 4096 },
    );
  }, 120_000);
});
