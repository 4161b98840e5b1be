// Raft write throughput and commit latency: three RaftNodes (real LevelDB with fsync,
// real ws over loopback), 100-byte commands, N concurrent proposers on the leader. The disk's own fsync
// latency is measured in the same run, so the table says how many commits each fsync carried.
//
//   node --import tsx scripts/bench/raft.ts [--seconds 3] [--proposers 1,16,64,256] [--processes]
//
// Default: all three servers in this process. --processes: the two followers run as child processes, so
// the CPU column is the leader's alone.

import { fork } from "node:child_process";
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Level } from "level";
import type { RaftNode } from "../../packages/raft/src/index.js";
import { freePort } from "../lib/ports.js";
import { startBenchServer } from "./raft-server.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "3" },
    proposers: { type: "string", default: "1,16,64,256" },
    processes: { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const concurrencies = values.proposers.split(",").map(Number);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

function spread(xs: number[]): { p50: number; p99: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/**
 * Sync-write latency of the disk under the data directory, probed right before each row (a shared disk's
 * latency drifts): a raw write+fsync of 100 bytes, and a LevelDB put with `sync: true` (what Raft pays).
 */
async function probeDisk(dir: string, rounds = 100) {
  const fd = openSync(join(dir, "fsync-probe"), "w");
  const block = Buffer.alloc(100, 1);
  const raw: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    writeSync(fd, block);
    fsyncSync(fd);
    raw.push(performance.now() - t);
  }
  closeSync(fd);
  const db = new Level<Buffer, Buffer>(join(dir, "level-probe"), {
    keyEncoding: "buffer",
    valueEncoding: "buffer",
  });
  await db.open();
  const level: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await db.put(Buffer.from(`k${i}`), block, { sync: true });
    level.push(performance.now() - t);
  }
  await db.close();
  return { fsync: spread(raw), levelSync: spread(level) };
}

interface Cluster {
  leader: RaftNode<number>;
  stop(): Promise<void>;
}

/** Three servers; the one in this process leads (with --processes the other two are child processes). */
async function startCluster(root: string): Promise<Cluster> {
  const ids = ["n1", "n2", "n3"];
  const peers: Record<string, string> = {};
  for (const id of ids) peers[id] = `127.0.0.1:${await freePort()}`;
  if (!values.processes) {
    const nodes = await Promise.all(ids.map((id) => startBenchServer({ id, root, peers })));
    for (;;) {
      const leader = nodes.find((n) => n.isLeader());
      if (leader) return { leader, stop: async () => void (await Promise.all(nodes.map((n) => n.stop()))) };
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const children = ids.slice(1).map((id) =>
    fork(fileURLToPath(new URL("./raft-server.ts", import.meta.url)), [JSON.stringify({ id, root, peers })], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  await Promise.all(children.map((c) => new Promise((resolve) => c.once("message", resolve))));
  const leader = await startBenchServer({ id: "n1", root, peers });
  while (!leader.isLeader()) {
    for (const c of children) c.send({ op: "transfer", to: "n1" });
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    leader,
    stop: async () => {
      await leader.stop();
      await Promise.all(
        children.map((c) => {
          const exited = new Promise((resolve) => c.once("exit", resolve));
          c.send({ op: "stop" });
          return exited;
        }),
      );
    },
  };
}

interface Row {
  proposers: number;
  disk: Awaited<ReturnType<typeof probeDisk>>;
  perSecond: number;
  p50: number;
  p99: number;
  fsyncsPerSecond: number;
  entriesPerFsync: number;
  cpu: number;
  /** Share of wall time the event loop was busy: well below 1 means it waited on the disk and network. */
  loopBusy: number;
}

async function run(leader: RaftNode<number>, proposers: number, probeDir: string): Promise<Row> {
  const disk = await probeDisk(probeDir);
  const command = Buffer.alloc(100, 7);
  const latencies: number[] = [];
  const before = leader.status().storage;
  const cpuBefore = process.cpuUsage();
  const eluBefore = performance.eventLoopUtilization();
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: proposers }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await leader.propose(command);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const loopBusy = performance.eventLoopUtilization(eluBefore).utilization;
  const after = leader.status().storage;
  latencies.sort((a, b) => a - b);
  const fsyncs = after.syncedWrites - before.syncedWrites;
  return {
    proposers,
    disk,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    fsyncsPerSecond: fsyncs / elapsed,
    entriesPerFsync: (after.entriesWritten - before.entriesWritten) / fsyncs,
    cpu: (cpu.user + cpu.system) / 1000 / (elapsed * 1000),
    loopBusy,
  };
}

const root = await mkdtemp(join(tmpdir(), "cairn-bench-raft-"));
try {
  const cluster = await startCluster(root);
  const { leader } = cluster;
  await run(leader, 16, root); // warm-up: connections, JIT
  const rows: Row[] = [];
  for (const n of concurrencies) rows.push(await run(leader, n, root));
  await cluster.stop();

  const f = (x: number, d = 1) => x.toFixed(d);
  console.log(
    `\nRaft: 3 nodes ${values.processes ? "in 3 processes" : "in one process"}, loopback ws, LevelDB sync writes, 100-byte commands, ${seconds}s per row`,
  );
  console.log("Disk columns: sync-write latency probed just before the row (p50/p99 ms).");
  const load = loadavg().map((l) => l.toFixed(1));
  console.log(
    `Machine: ${cpus().length} cores, load average ${load.join(" ")} at the end (other work skews the figures).\n`,
  );
  console.log(
    "| proposers | proposals/s | commit p50 ms | commit p99 ms | disk fsync p50/p99 | level sync put p50/p99 | leader fsyncs/s | commits per fsync | CPU (cores) | event loop busy |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const { fsync, levelSync } = r.disk;
    console.log(
      `| ${r.proposers} | ${f(r.perSecond, 0)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${f(fsync.p50, 2)} / ${f(fsync.p99, 2)} | ${f(levelSync.p50, 2)} / ${f(levelSync.p99, 2)} | ${f(r.fsyncsPerSecond, 0)} | ${f(r.entriesPerFsync)} | ${f(r.cpu, 2)} | ${f(r.loopBusy * 100, 0)}% |`,
    );
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
