// Soak benchmark (not a test): three fsynced servers on loopback under steady mixed load for a long time,
// sampled every few seconds, to show that nothing the servers keep grows with time: KV writes to the leader,
// stale reads over all servers, blocking queries woken by some of the writes, sessions renewing. Writes a
// markdown report and an SVG plot (throughput, write p99, leader heap and RSS, disk, open descriptors).
//
//   node --conditions=source --import tsx scripts/bench/soak.ts [--minutes 30] [--sample 10]
//        [--warmup 3] [--writers 16] [--readers 16] [--watchers 100] [--sessions 20] [--keys 10000]
//        [--compare 2] [--out bench/results] [--keep]
//
// After the soak, a fresh cluster starts beside the soaked one and the same load moves between them in four legs
// of --compare minutes (soaked, fresh, fresh, soaked): the machine's own drift, which on a shared host moves
// throughput by ±20% over half an hour, then weighs on both alike.

import { readdirSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { Agent } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { AgentProcess } from "../lib/agent.js";
import { startCairnCluster } from "../lib/cluster.js";
import { stopAll } from "../lib/processes.js";
import { useBuiltAgents } from "./lib/built.js";
import { probeCpu } from "./lib/cpu-probe.js";
import { type HttpTarget, httpRequest, keepAliveAgent } from "./lib/http-client.js";
import { Latencies } from "./lib/latency.js";
import { cpuSeconds, machineCpuSeconds, rssBytes } from "./lib/proc-stats.js";
import { lineChartsSvg } from "./lib/svg-chart.js";
import { formatMs, markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    sample: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    writers: { type: "string", default: "16" },
    readers: { type: "string", default: "16" },
    watchers: { type: "string", default: "100" },
    sessions: { type: "string", default: "20" },
    keys: { type: "string", default: "10000" },
    compare: { type: "string", default: "2" },
    out: { type: "string", default: "bench/results" },
    keep: { type: "boolean", default: false },
  },
});
const MINUTES = Number(values.minutes);
const SAMPLE_MS = Number(values.sample) * 1000;
const WARMUP_MIN = Number(values.warmup);
const WRITERS = Number(values.writers);
const READERS = Number(values.readers);
const WATCHERS = Number(values.watchers);
const SESSIONS = Number(values.sessions);
const KEYS = Number(values.keys);
/** Minutes of each leg of the closing comparison with a fresh cluster (0: none). */
const COMPARE_MIN = Number(values.compare);
/** Minutes the fresh cluster serves the load, unrecorded, before the legs: its JIT, its keys. */
const FRESH_WARMUP_MIN = 1;
/** Keys the blocking queries watch; one write in twenty goes to one of them. */
const WATCHED = 50;
const VALUE = "v".repeat(100);

const log = (line: string) => console.error(`[soak] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the load did since the last sample. */
class Window {
  writes = 0;
  reads = 0;
  wakes = 0;
  renewals = 0;
  errors = 0;
  firstError: string | undefined;
  writeLatency = new Latencies();

  fail(err: unknown): void {
    this.errors++;
    this.firstError ??= err instanceof Error ? err.message : String(err);
  }
}

interface Sample {
  minute: number;
  writesPerSec: number;
  readsPerSec: number;
  wakesPerSec: number;
  writeP99: number;
  leaderHeapMB: number;
  leaderRssMB: number;
  /** All three data directories. */
  diskMB: number;
  leaderFds: number;
  errors: number;
  /** CPU in cores over the window: the leader, all three servers, this load generator. */
  leaderCores: number;
  serverCores: number;
  generatorCores: number;
  /**
   * The rest of the machine's busy CPU, and the hypervisor's steal: work that is not this benchmark's, which on
   * a shared machine can slow every figure at once.
   */
  otherCores: number;
  stealCores: number;
  /** CPU milliseconds a fixed task took in this process at the sample: the machine's speed (lib/cpu-probe.ts). */
  probeAluMs: number;
  probeMemoryMs: number;
}

/** CPU counters read at each sample, to turn into cores over the window. */
interface CpuReading {
  leader: number;
  servers: number;
  generator: number;
  machine: number;
  steal: number;
}

function readCpu(leaderPid: number, pids: readonly number[]): CpuReading {
  const own = process.cpuUsage();
  const machine = machineCpuSeconds();
  const servers = pids.map((pid) => {
    try {
      return cpuSeconds(pid);
    } catch {
      return 0; // a server that exited: the next reading says so in its errors
    }
  });
  return {
    leader: servers[pids.indexOf(leaderPid)] ?? 0,
    servers: servers.reduce((a, b) => a + b, 0),
    generator: (own.user + own.system) / 1e6,
    machine: machine.busy,
    steal: machine.steal,
  };
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    try {
      total += statSync(join(entry.parentPath ?? entry.path, entry.name)).size;
    } catch {
      // A LevelDB file compacted away between the listing and the stat.
    }
  }
  return total;
}

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

async function heapBytes(agent: Agent, target: HttpTarget): Promise<number> {
  const res = await httpRequest(agent, target, "GET", "/v1/agent/metrics");
  const body = JSON.parse(res.body.toString()) as { Gauges?: Array<{ Name: string; Value: number }> };
  return body.Gauges?.find((g) => g.Name === "consul.runtime.alloc_bytes")?.Value ?? Number.NaN;
}

async function ok(agent: Agent, target: HttpTarget, method: string, path: string, body?: string) {
  const res = await httpRequest(agent, target, method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.body.toString().trim()}`);
  return res;
}

/** One three-server cluster under test, with a keep-alive connection pool for each server. */
interface SoakCluster {
  name: string;
  dataRoot: string;
  leader: AgentProcess;
  servers: readonly AgentProcess[];
  agents: Map<AgentProcess, Agent>;
}

async function startSoakCluster(name: string, dataRoot: string): Promise<SoakCluster> {
  log(`starting 3 servers for the ${name} cluster in ${dataRoot}`);
  await mkdir(dataRoot, { recursive: true });
  const cluster = await startCairnCluster(3, dataRoot);
  const agents = new Map(cluster.servers.map((s) => [s, keepAliveAgent(WRITERS + READERS + WATCHERS + 8)]));
  return { name, dataRoot, leader: cluster.leader, servers: cluster.servers, agents };
}

const on = (c: SoakCluster, s: AgentProcess) => ({ agent: c.agents.get(s)!, target: s.http });

/**
 * The soak's load. Writers and readers drive whichever cluster is `active`, so the comparison at the end can
 * move them between clusters; each cluster keeps its own blocking queries and renewing sessions.
 */
class SoakLoad {
  window = new Window();
  stopping = false;
  private readonly running: Array<Promise<void>> = [];

  constructor(public active: SoakCluster) {
    for (let i = 0; i < WRITERS; i++) this.running.push(this.writer(i));
    for (let i = 0; i < READERS; i++) this.running.push(this.reader(i));
  }

  /** Blocking queries and sessions on a cluster, for as long as the load runs. */
  background(cluster: SoakCluster): void {
    for (let i = 0; i < WATCHERS; i++) this.running.push(this.watcher(cluster, i));
    this.running.push(this.sessions(cluster));
  }

  /** Starts a new window and returns the one that ended. */
  take(): Window {
    const w = this.window;
    this.window = new Window();
    return w;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.running);
  }

  private async writer(id: number): Promise<void> {
    for (let seq = 0; !this.stopping; seq++) {
      const cluster = this.active;
      const lead = on(cluster, cluster.leader);
      const n = (id * 7919 + seq * 104729) % KEYS;
      const key = seq % 20 === 0 ? `soak/w/${n % WATCHED}` : `soak/k/${n}`;
      const t0 = performance.now();
      try {
        await ok(lead.agent, lead.target, "PUT", `/v1/kv/${key}`, VALUE);
        this.window.writes++;
        this.window.writeLatency.record(performance.now() - t0);
      } catch (err) {
        this.window.fail(err);
      }
    }
  }

  private async reader(id: number): Promise<void> {
    for (let seq = 0; !this.stopping; seq++) {
      const cluster = this.active;
      const { agent, target } = on(cluster, cluster.servers[id % cluster.servers.length]!);
      try {
        const res = await httpRequest(agent, target, "GET", `/v1/kv/soak/k/${(id + seq * 31) % KEYS}?stale`);
        if (res.status !== 200 && res.status !== 404) throw new Error(`stale GET: ${res.status}`);
        this.window.reads++;
      } catch (err) {
        this.window.fail(err);
      }
    }
  }

  private async watcher(cluster: SoakCluster, id: number): Promise<void> {
    const { agent, target } = on(cluster, cluster.servers[id % cluster.servers.length]!);
    const path = `/v1/kv/soak/w/${id % WATCHED}`;
    let index = 1;
    while (!this.stopping) {
      try {
        const res = await httpRequest(agent, target, "GET", `${path}?stale&index=${index}&wait=20s`);
        if (res.status !== 200 && res.status !== 404) throw new Error(`blocking GET: ${res.status}`);
        const next = Number(res.headers["x-consul-index"]);
        if (next > index) this.window.wakes++;
        index = next < index ? 1 : next;
      } catch (err) {
        this.window.fail(err);
        await sleep(100);
      }
    }
  }

  private async sessions(cluster: SoakCluster): Promise<void> {
    const lead = on(cluster, cluster.leader);
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const res = await ok(lead.agent, lead.target, "PUT", "/v1/session/create", '{"TTL":"15s"}');
      ids.push((JSON.parse(res.body.toString()) as { ID: string }).ID);
    }
    while (!this.stopping) {
      await sleep(5_000);
      for (const id of ids) {
        try {
          await ok(lead.agent, lead.target, "PUT", `/v1/session/renew/${id}`);
          this.window.renewals++;
        } catch (err) {
          this.window.fail(err);
        }
      }
    }
  }
}

/**
 * Samples `cluster` every SAMPLE_MS for `minutes` while the load drives it; `offset` places the samples on the
 * soak's time axis.
 */
async function sampleFor(
  load: SoakLoad,
  cluster: SoakCluster,
  minutes: number,
  offset: number,
  log_: boolean,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const lead = on(cluster, cluster.leader);
  const pids = cluster.servers.map((s) => s.process.pid);
  const started = performance.now();
  const end = started + minutes * 60_000;
  let last = started;
  let cpu = readCpu(cluster.leader.process.pid, pids);
  load.take();
  while (performance.now() < end) {
    await sleep(SAMPLE_MS);
    const now = performance.now();
    const w = load.take();
    const seconds = (now - last) / 1000;
    last = now;
    const before = cpu;
    cpu = readCpu(cluster.leader.process.pid, pids);
    const after = cpu;
    const cores = (f: (r: CpuReading) => number) => (f(after) - f(before)) / seconds;
    const serverCores = cores((r) => r.servers);
    const generatorCores = cores((r) => r.generator);
    // About 160 ms of this process's CPU every sample, while the load waits: the same cost in every window.
    const probe = probeCpu();
    const sample: Sample = {
      minute: offset + (now - started) / 60_000,
      writesPerSec: w.writes / seconds,
      readsPerSec: w.reads / seconds,
      wakesPerSec: w.wakes / seconds,
      writeP99: w.writeLatency.percentile(99),
      leaderHeapMB: (await heapBytes(lead.agent, lead.target).catch(() => Number.NaN)) / 1e6,
      leaderRssMB: rssBytes(cluster.leader.process.pid) / 1e6,
      diskMB: cluster.servers.reduce((sum, s) => sum + dirBytes(join(cluster.dataRoot, s.name)), 0) / 1e6,
      leaderFds: openFds(cluster.leader.process.pid),
      errors: w.errors,
      leaderCores: cores((r) => r.leader),
      serverCores,
      generatorCores,
      otherCores: Math.max(0, cores((r) => r.machine) - serverCores - generatorCores),
      stealCores: cores((r) => r.steal),
      probeAluMs: probe.alu,
      probeMemoryMs: probe.memory,
    };
    samples.push(sample);
    if (!log_) continue;
    log(
      `${cluster.name} ${sample.minute.toFixed(1)} min: ${Math.round(sample.writesPerSec)} writes/s (p99 ${formatMs(sample.writeP99)} ms), ` +
        `${Math.round(sample.readsPerSec)} reads/s, heap ${sample.leaderHeapMB.toFixed(0)} MB, RSS ${sample.leaderRssMB.toFixed(0)} MB, ` +
        `disk ${sample.diskMB.toFixed(0)} MB, ${sample.leaderFds} fds, CPU cores leader ${sample.leaderCores.toFixed(2)} ` +
        `servers ${sample.serverCores.toFixed(2)} generator ${sample.generatorCores.toFixed(2)} ` +
        `others ${sample.otherCores.toFixed(2)} steal ${sample.stealCores.toFixed(2)}, ` +
        `probe ${probe.alu.toFixed(1)} / ${probe.memory.toFixed(1)} ms` +
        (w.errors ? `, ${w.errors} errors (first: ${w.firstError})` : ""),
    );
  }
  return samples;
}

/** Legs of the comparison between the soaked cluster and a fresh one: balanced, so a steady drift cancels. */
const LEG_ORDER = ["aged", "fresh", "fresh", "aged"] as const;

interface Comparison {
  legs: Array<{ cluster: "aged" | "fresh"; samples: Sample[] }>;
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "cairn-soak-"));
  const loadBefore = loadavg()[0]!.toFixed(1);
  let samples: Sample[] = [];
  let comparison: Comparison | undefined;
  let load: SoakLoad | undefined;
  const clusters: SoakCluster[] = [];
  try {
    const aged = await startSoakCluster("soaked", join(root, "soaked"));
    clusters.push(aged);
    log(
      `load: ${WRITERS} writers, ${READERS} stale readers, ${WATCHERS} blocking queries, ${SESSIONS} sessions, ${MINUTES} min`,
    );
    load = new SoakLoad(aged);
    load.background(aged);
    samples = await sampleFor(load, aged, MINUTES, 0, true);
    if (COMPARE_MIN > 0) {
      // A young cluster beside the old one, the same load moved between them: whatever the machine does to
      // both at once cancels, what thirty minutes did to the soaked cluster does not.
      const fresh = await startSoakCluster("fresh", join(root, "fresh"));
      clusters.push(fresh);
      load.background(fresh);
      load.active = fresh;
      log(`fresh cluster: ${FRESH_WARMUP_MIN} min of the same load first, unrecorded`);
      await sampleFor(load, fresh, FRESH_WARMUP_MIN, 0, false);
      comparison = { legs: [] };
      let offset = MINUTES + FRESH_WARMUP_MIN;
      for (const which of LEG_ORDER) {
        const cluster = which === "aged" ? aged : fresh;
        load.active = cluster;
        const legSamples = await sampleFor(load, cluster, COMPARE_MIN, offset, false);
        offset += COMPARE_MIN;
        comparison.legs.push({ cluster: which, samples: legSamples });
        log(`${which === "aged" ? "soaked" : "fresh"} leg: ${legSummary(legSamples)}`);
      }
    }
    log("stopping the load (blocking queries end within their wait)");
    await load.stop();
    for (const c of clusters) for (const agent of c.agents.values()) agent.destroy();
  } finally {
    if (load) load.stopping = true;
    await stopAll();
    if (values.keep) log(`data and logs kept in ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
  await report(samples, comparison, loadBefore);
}

function legSummary(samples: Sample[]): string {
  const m = (f: (s: Sample) => number) => mean(samples.map(f));
  return (
    `${m((s) => s.writesPerSec).toFixed(0)} writes/s, ${m((s) => s.readsPerSec).toFixed(0)} reads/s, ` +
    `write p99 ${m((s) => s.writeP99).toFixed(1)} ms, leader heap ${m((s) => s.leaderHeapMB).toFixed(0)} MB, ` +
    `RSS ${m((s) => s.leaderRssMB).toFixed(0)} MB, probe ${m((s) => s.probeMemoryMs).toFixed(1)} ms`
  );
}

/** Least-squares slope of y over x (per minute), over the samples after warm-up. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Pearson's correlation of two series. */
function correlation(xs: number[], ys: number[]): number {
  const mx = mean(xs);
  const my = mean(ys);
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    dx += (xs[i]! - mx) ** 2;
    dy += (ys[i]! - my) ** 2;
  }
  return dx && dy ? num / Math.sqrt(dx * dy) : Number.NaN;
}

/** The closing comparison as markdown: one row a leg, then the soaked cluster's legs against the fresh one's. */
function comparisonLines(comparison: Comparison): string[] {
  const of = (which: "aged" | "fresh") =>
    comparison.legs.filter((l) => l.cluster === which).flatMap((l) => l.samples);
  const aged = of("aged");
  const fresh = of("fresh");
  const ratio = (f: (s: Sample) => number) => (mean(aged.map(f)) / mean(fresh.map(f))).toFixed(2);
  return [
    `## The soaked cluster against a fresh one`,
    "",
    `A fresh three-server cluster started beside the soaked one and served the same load for ${FRESH_WARMUP_MIN} ` +
      `min unrecorded; then the writers and readers moved between the two in legs of ${COMPARE_MIN} min, soaked, ` +
      `fresh, fresh, soaked, so that a steady drift of the machine weighs on both alike. The soaked cluster ` +
      `against the fresh one: writes/s ${ratio((s) => s.writesPerSec)}×, reads/s ${ratio((s) => s.readsPerSec)}×, ` +
      `write p99 ${ratio((s) => s.writeP99)}×, leader heap ${ratio((s) => s.leaderHeapMB)}×, leader RSS ` +
      `${ratio((s) => s.leaderRssMB)}×, disk ${ratio((s) => s.diskMB)}×.`,
    "",
    markdownTable(
      [
        "leg",
        "cluster",
        "writes/s",
        "write p99 ms",
        "reads/s",
        "heap MB",
        "RSS MB",
        "disk MB",
        "probe ms",
        "errors",
      ],
      comparison.legs.map((leg, i) => {
        const m = (f: (s: Sample) => number) => mean(leg.samples.map(f));
        return [
          String(i + 1),
          leg.cluster === "aged" ? "soaked" : "fresh",
          m((s) => s.writesPerSec).toFixed(0),
          formatMs(m((s) => s.writeP99)),
          m((s) => s.readsPerSec).toFixed(0),
          m((s) => s.leaderHeapMB).toFixed(0),
          m((s) => s.leaderRssMB).toFixed(0),
          m((s) => s.diskMB).toFixed(1),
          `${m((s) => s.probeAluMs).toFixed(1)} / ${m((s) => s.probeMemoryMs).toFixed(1)}`,
          String(leg.samples.reduce((n, s) => n + s.errors, 0)),
        ];
      }),
    ),
    "",
  ];
}

async function report(
  samples: Sample[],
  comparison: Comparison | undefined,
  loadBefore: string,
): Promise<void> {
  const steady = samples.filter((s) => s.minute >= WARMUP_MIN);
  const half = Math.floor(steady.length / 2);
  const first = steady.slice(0, half);
  const second = steady.slice(half);
  const pts = (f: (s: Sample) => number) => steady.map((s): [number, number] => [s.minute, f(s)]);
  // The leader's RSS settles later than the warm-up (the log's in-memory tail, the store's caches): the second
  // half's trend says whether it still climbs.
  const late = (f: (s: Sample) => number) => second.map((s): [number, number] => [s.minute, f(s)]);
  const change = (f: (s: Sample) => number) =>
    first.length && second.length
      ? `${((mean(second.map(f)) / mean(first.map(f)) - 1) * 100).toFixed(1)}%`
      : "-";
  const halves = (f: (s: Sample) => number) =>
    first.length && second.length
      ? `${mean(first.map(f)).toFixed(2)} -> ${mean(second.map(f)).toFixed(2)}`
      : "-";
  const stamp = new Date()
    .toISOString()
    .slice(0, 16)
    .replace(/[-:T]/g, "")
    .replace(/^(\d{8})/, "$1-");
  const outDir = resolve(values.out);
  await mkdir(outDir, { recursive: true });
  const svgName = `soak-${stamp}.svg`;
  const title = `Cairn soak: 3 servers, ${WRITERS} writers, ${READERS} readers, ${WATCHERS} blocking queries, ${SESSIONS} sessions`;
  const svg = lineChartsSvg(title, "minutes", [
    {
      title: "throughput",
      unit: "ops/s",
      series: [
        { name: "KV writes", points: samples.map((s) => [s.minute, s.writesPerSec]) },
        { name: "stale reads", points: samples.map((s) => [s.minute, s.readsPerSec]) },
      ],
    },
    {
      title: "KV write p99",
      unit: "ms",
      series: [{ name: "p99", points: samples.map((s) => [s.minute, s.writeP99]) }],
    },
    {
      title: "leader memory",
      unit: "MB",
      series: [
        { name: "heap used", points: samples.map((s) => [s.minute, s.leaderHeapMB]) },
        { name: "RSS", points: samples.map((s) => [s.minute, s.leaderRssMB]) },
      ],
    },
    {
      title: "disk, three data dirs",
      unit: "MB",
      series: [{ name: "disk", points: samples.map((s) => [s.minute, s.diskMB]) }],
    },
    {
      title: "CPU",
      unit: "cores",
      series: [
        { name: "leader", points: samples.map((s) => [s.minute, s.leaderCores]) },
        { name: "all servers", points: samples.map((s) => [s.minute, s.serverCores]) },
        { name: "load generator", points: samples.map((s) => [s.minute, s.generatorCores]) },
        { name: "rest of the machine", points: samples.map((s) => [s.minute, s.otherCores + s.stealCores]) },
      ],
    },
    {
      title: "machine speed: CPU for a fixed task (lower is faster)",
      unit: "ms",
      series: [
        { name: "integer arithmetic", points: samples.map((s) => [s.minute, s.probeAluMs]) },
        { name: "cache-missing reads", points: samples.map((s) => [s.minute, s.probeMemoryMs]) },
      ],
    },
    {
      title: "leader open descriptors",
      unit: "fds",
      series: [{ name: "fds", points: samples.map((s) => [s.minute, s.leaderFds]) }],
    },
  ]);
  await writeFile(join(outDir, svgName), svg);
  const lines = [
    `# Soak, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
    "",
    `\`node --conditions=source --import tsx scripts/bench/soak.ts --minutes ${MINUTES}\`: three fsynced servers on loopback; ` +
      `${WRITERS} closed-loop writers to the leader over ${KEYS} keys (100-byte values; one write in twenty to one of ` +
      `${WATCHED} watched keys), ${READERS} stale readers over all servers, ${WATCHERS} blocking queries on the watched ` +
      `keys, ${SESSIONS} sessions with a 15 s TTL renewed every 5 s. Load average before: ${loadBefore}.`,
    "",
    `![soak](${svgName})`,
    "",
    `After the ${WARMUP_MIN}-minute warm-up, second half against first half: writes/s ${change((s) => s.writesPerSec)}, ` +
      `reads/s ${change((s) => s.readsPerSec)}, write p99 ${change((s) => s.writeP99)}; trend per minute: leader heap ` +
      `${slope(pts((s) => s.leaderHeapMB)).toFixed(2)} MB, RSS ${slope(pts((s) => s.leaderRssMB)).toFixed(2)} MB, disk ` +
      `${slope(pts((s) => s.diskMB)).toFixed(2)} MB, descriptors ${slope(pts((s) => s.leaderFds)).toFixed(2)} ` +
      `(second half alone: heap ${slope(late((s) => s.leaderHeapMB)).toFixed(2)} MB, RSS ` +
      `${slope(late((s) => s.leaderRssMB)).toFixed(2)} MB); ` +
      `disk between ${Math.min(...steady.map((s) => s.diskMB)).toFixed(0)} and ${Math.max(...steady.map((s) => s.diskMB)).toFixed(0)} MB; ` +
      `${samples.reduce((n, s) => n + s.errors, 0)} failed operations. CPU in cores, first half -> second half: ` +
      `servers ${halves((s) => s.serverCores)}, load generator ${halves((s) => s.generatorCores)}, the rest of the ` +
      `machine (other processes and steal) ${halves((s) => s.otherCores + s.stealCores)}. The machine's speed, as ` +
      `CPU ms for a fixed task (integer arithmetic / cache-missing reads; higher is slower), first half -> second ` +
      `half: ${halves((s) => s.probeAluMs)} / ${halves((s) => s.probeMemoryMs)}; correlation of writes/s with the ` +
      `cache-missing reads' time: ${correlation(
        steady.map((s) => s.writesPerSec),
        steady.map((s) => s.probeMemoryMs),
      ).toFixed(2)}.`,
    "",
    ...(comparison ? comparisonLines(comparison) : []),
    `## The soak, every ${SAMPLE_MS / 1000} s`,
    "",
    markdownTable(
      [
        "minute",
        "writes/s",
        "write p99 ms",
        "reads/s",
        "wakes/s",
        "heap MB",
        "RSS MB",
        "disk MB",
        "fds",
        "CPU leader / servers / generator / rest",
        "probe ms",
        "errors",
      ],
      samples.map((s) => [
        s.minute.toFixed(1),
        Math.round(s.writesPerSec).toString(),
        formatMs(s.writeP99),
        Math.round(s.readsPerSec).toString(),
        s.wakesPerSec.toFixed(0),
        s.leaderHeapMB.toFixed(0),
        s.leaderRssMB.toFixed(0),
        s.diskMB.toFixed(1),
        String(s.leaderFds),
        [s.leaderCores, s.serverCores, s.generatorCores, s.otherCores + s.stealCores]
          .map((c) => c.toFixed(2))
          .join(" / "),
        `${s.probeAluMs.toFixed(1)} / ${s.probeMemoryMs.toFixed(1)}`,
        String(s.errors),
      ]),
    ),
    "",
  ];
  const mdName = `soak-${stamp}.md`;
  await writeFile(join(outDir, mdName), lines.join("\n"));
  console.log(lines.join("\n"));
  log(`wrote ${join(outDir, mdName)} and ${svgName}`);
}

useBuiltAgents();
main().catch(async (err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  await stopAll(1000);
  process.exit(1);
});
