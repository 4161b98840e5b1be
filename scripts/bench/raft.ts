// Raft write throughput and commit latency: three RaftNodes in this one process (real LevelDB with fsync,
// real ws over loopback), 100-byte commands, N concurrent proposers on the leader. The disk's own fsync
// latency is measured in the same run, so the table says how many commits each fsync carried.
//
//   node --import tsx scripts/bench/raft.ts [--seconds 3] [--proposers 1,16,64,256]

import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Level } from "level";
import pino from "pino";
import { RaftNode, type StateMachine } from "../../packages/raft/src/index.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "3" },
    proposers: { type: "string", default: "1,16,64,256" },
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

/** The cheapest state machine: counts commands, so the figures are Raft's and the disk's. */
class Counter implements StateMachine<number> {
  count = 0;
  apply(): number {
    return ++this.count;
  }
  async snapshot(out: { write(chunk: Uint8Array): Promise<void> }): Promise<void> {
    const bytes = Buffer.from(String(this.count));
    await out.write(bytes);
  }
  async restore(): Promise<void> {}
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startCluster(root: string): Promise<RaftNode<number>[]> {
  const ids = ["n1", "n2", "n3"];
  const peers: Record<string, string> = {};
  for (const id of ids) peers[id] = `127.0.0.1:${await freePort()}`;
  return Promise.all(
    ids.map((id) =>
      RaftNode.start<number>({
        id,
        clusterId: "bench",
        dataDir: join(root, id),
        host: "127.0.0.1",
        port: Number(peers[id]!.split(":")[1]),
        peers,
        bootstrap: ids,
        stateMachine: new Counter(),
        logger: pino({ level: "warn" }),
        tickMs: 50,
        electionTicks: 20,
        heartbeatTicks: 2,
      }),
    ),
  );
}

async function leaderOf(nodes: RaftNode<number>[]): Promise<RaftNode<number>> {
  for (;;) {
    const leader = nodes.find((n) => n.isLeader());
    if (leader) return leader;
    await new Promise((r) => setTimeout(r, 20));
  }
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
  const nodes = await startCluster(root);
  const leader = await leaderOf(nodes);
  await run(leader, 16, root); // warm-up: connections, JIT
  const rows: Row[] = [];
  for (const n of concurrencies) rows.push(await run(leader, n, root));
  await Promise.all(nodes.map((n) => n.stop()));

  const f = (x: number, d = 1) => x.toFixed(d);
  console.log(
    `\nRaft: 3 nodes in one process, loopback ws, LevelDB sync writes, 100-byte commands, ${seconds}s per row`,
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
