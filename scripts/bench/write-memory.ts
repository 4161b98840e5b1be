// Memory of a server over many small writes: one Raft server (real LevelDB with fsync, the real state
// machine with its snapshots and log compaction) takes N KV writes over a fixed key space, and heap, RSS and
// the data directory's size are sampled along the way. With compaction, all three should be flat once the
// key space is full: nothing a server keeps may grow with the number of writes it has seen.
//
//   node --conditions=source --expose-gc --import tsx scripts/bench/write-memory.ts [--writes 10000000]
//     [--keys 10000] [--proposers 256] [--samples 10]

import { readdirSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { FsmStateMachine } from "../../packages/agent/src/server/fsm-state-machine.js";
import { COMMAND_VERSION, encodeCommandEntry } from "../../packages/fsm/src/index.js";
import { openLevelRaftNode } from "../../packages/raft/src/index.js";
import { markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    writes: { type: "string", default: "10000000" },
    keys: { type: "string", default: "10000" },
    proposers: { type: "string", default: "256" },
    samples: { type: "string", default: "10" },
  },
});
const writes = Number(values.writes);
const keys = Number(values.keys);
const proposers = Number(values.proposers);
const samples = Number(values.samples);

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const root = await mkdtemp(join(tmpdir(), "cairn-write-memory-"));
const node = await openLevelRaftNode({
  id: "s1",
  clusterId: "bench",
  dataDir: join(root, "s1"),
  host: "127.0.0.1",
  port: 0,
  bootstrap: ["s1"],
  stateMachine: new FsmStateMachine(),
  logger: pino({ level: "warn" }),
  tickMs: 50,
  electionTicks: 10,
});
while (!node.isLeader()) await new Promise((r) => setTimeout(r, 20));

const value = Buffer.alloc(16, 7);
const entryFor = (i: number) =>
  encodeCommandEntry({ v: COMMAND_VERSION, type: "kv.set", key: `bench/${i % keys}`, value, flags: 0n });

const rows: string[][] = [];
const every = Math.max(1, Math.floor(writes / samples));
let next = 0;
let done = 0;
const started = performance.now();
let lastSample = started;
let lastDone = 0;

function sample(): void {
  globalThis.gc?.();
  const mem = process.memoryUsage();
  const now = performance.now();
  const rate = ((done - lastDone) * 1000) / (now - lastSample);
  rows.push([
    done.toLocaleString("en"),
    ((now - started) / 1000).toFixed(0),
    Math.round(rate).toLocaleString("en"),
    mb(mem.heapUsed),
    mb(mem.rss),
    mb(dirBytes(root)),
    String(node.status().snapshotIndex),
  ]);
  process.stderr.write(`${rows.at(-1)!.join("  ")}\n`);
  lastSample = now;
  lastDone = done;
}

async function proposer(): Promise<void> {
  while (next < writes) {
    const i = next++;
    await node.propose(entryFor(i));
    done++;
    if (done % every === 0) sample();
  }
}

await Promise.all(Array.from({ length: proposers }, proposer));
await node.stop();
await rm(root, { recursive: true, force: true });

const heap = rows.map((r) => Number(r[3]));
const warm = heap[Math.min(1, heap.length - 1)]!;
console.log(
  `### Server memory over ${writes.toLocaleString("en")} KV writes (${keys.toLocaleString("en")} keys, ` +
    `16-byte values, ${proposers} proposers, one server with fsync, snapshot and compaction every 10,000 entries)\n`,
);
console.log(
  markdownTable(
    ["writes", "s", "writes/s", "heap MB (after gc)", "RSS MB", "data dir MB", "snapshot index"],
    rows,
  ),
);
console.log(
  `\nHeap after warm-up (second sample) ${warm.toFixed(1)} MB, at the end ${heap.at(-1)!.toFixed(1)} MB, ` +
    `highest ${Math.max(...heap.slice(1)).toFixed(1)} MB.`,
);
