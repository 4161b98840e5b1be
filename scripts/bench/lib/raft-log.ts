// A long Raft log on disk, and a restart over it weighed: shared by the restart benchmark
// (scripts/bench/raft-restart.ts) and its test (packages/raft/test/storage/long-log.test.ts).

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import pino from "pino";
import { encodeConfEntry } from "../../../packages/raft/src/core/conf.js";
import type { Entry } from "../../../packages/raft/src/core/types.js";
import { openLevelRaftNode, type ServerRaftNode } from "../../../packages/raft/src/level-node.js";
import type { SnapshotOutput, StateMachine } from "../../../packages/raft/src/node/state-machine.js";
import { RaftStorage } from "../../../packages/raft/src/storage/raft-storage.js";

const silent = pino({ level: "silent" });
const BATCH = 100_000;

/**
 * Writes a committed log of `count` entries for a single-server cluster `n1`: a bootstrap conf entry, then
 * small commands over `terms` terms, in large batches (as many as a busy leader would have written).
 */
export async function writeLongLog(dir: string, count: number, terms = 3): Promise<void> {
  const storage = await RaftStorage.open(dir, silent);
  try {
    const termOf = (i: number) => 1 + Math.floor(((i - 1) * terms) / count);
    const first: Entry = {
      index: 1,
      term: 1,
      kind: "conf",
      data: encodeConfEntry({ change: null, conf: { voters: ["n1"], learners: [] } }),
    };
    for (let lo = 1; lo <= count; lo += BATCH) {
      const hi = Math.min(count, lo + BATCH - 1);
      const entries: Entry[] = [];
      for (let i = lo; i <= hi; i++) {
        entries.push(i === 1 ? first : { index: i, term: termOf(i), kind: "normal", data: command(i) });
      }
      await storage.save({ entries });
    }
    await storage.save({ entries: [], hardState: { term: terms, vote: "n1", commit: count } });
  } finally {
    await storage.close();
  }
}

function command(i: number): Uint8Array {
  return Buffer.from(`k${i % 1000}=${i}`);
}

/** Counts what it applies and checks the order; its snapshots are empty (the state is a counter). */
export class CountingMachine implements StateMachine<number> {
  applied = 0;
  lastIndex = 0;
  outOfOrder = 0;

  apply(index: number): number {
    if (index !== this.lastIndex + 1 && this.lastIndex !== 0) this.outOfOrder++;
    this.lastIndex = index;
    return ++this.applied;
  }

  async snapshot(out: SnapshotOutput): Promise<void> {
    await out.write(Buffer.from(String(this.lastIndex)));
  }

  async restore(): Promise<void> {}
}

/** Heap in use after full collections (exact only where gc can be exposed, which it is here). */
export function heapUsed(): number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export interface RestartMeasure {
  /** Milliseconds until openLevelRaftNode resolved (storage open, state machine restored, serving). */
  startMs: number;
  /** Heap growth from before the start to just after it. */
  startHeap: number;
}

/** Starts a server over `dir`, weighs the start, and hands the running node to `then` before stopping it. */
export async function measureRestart(
  dir: string,
  then: (node: ServerRaftNode<number>, machine: CountingMachine) => Promise<void> = async () => {},
  logCache?: { maxEntries: number; maxBytes: number },
): Promise<RestartMeasure> {
  const machine = new CountingMachine();
  const before = heapUsed();
  const started = performance.now();
  const node = await openLevelRaftNode({
    id: "n1",
    clusterId: "bench",
    dataDir: dir,
    host: "127.0.0.1",
    port: 0,
    stateMachine: machine,
    logger: silent,
    ...(logCache ? { logCache } : {}),
  });
  const startMs = performance.now() - started;
  try {
    const startHeap = heapUsed() - before;
    await then(node, machine);
    return { startMs, startHeap };
  } finally {
    await node.stop();
  }
}
