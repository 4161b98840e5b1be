// Soak benchmark (not a test): three fsynced servers on loopback under steady mixed load for a long time,
// sampled every few seconds, to show that nothing the servers keep grows with time: KV writes to the leader,
// stale reads over all servers, blocking queries woken by some of the writes, sessions renewing. Writes a
// markdown report and an SVG plot (throughput, write p99, leader heap and RSS, disk, open descriptors).
//
//   node --conditions=source --import tsx scripts/bench/soak.ts [--minutes 30] [--sample 10]
//        [--warmup 3] [--writers 16] [--readers 16] [--watchers 100] [--sessions 20] [--keys 10000]
//        [--out bench/results] [--keep]

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

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "cairn-soak-"));
  const loadBefore = loadavg()[0]!.toFixed(1);
  const samples: Sample[] = [];
  let stopping = false;
  try {
    log(`starting 3 servers in ${root}`);
    const cluster = await startCairnCluster(3, root);
    const leader = cluster.leader;
    const servers: readonly AgentProcess[] = cluster.servers;
    const agents = new Map(servers.map((s) => [s, keepAliveAgent(WRITERS + READERS + WATCHERS + 8)]));
    const on = (s: AgentProcess) => ({ agent: agents.get(s)!, target: s.http });
    const lead = on(leader);
    let window = new Window();

    const writer = async (id: number) => {
      for (let seq = 0; !stopping; seq++) {
        const n = (id * 7919 + seq * 104729) % KEYS;
        const key = seq % 20 === 0 ? `soak/w/${n % WATCHED}` : `soak/k/${n}`;
        const t0 = performance.now();
        try {
          await ok(lead.agent, lead.target, "PUT", `/v1/kv/${key}`, VALUE);
          window.writes++;
          window.writeLatency.record(performance.now() - t0);
        } catch (err) {
          window.fail(err);
        }
      }
    };
    const reader = async (id: number) => {
      const { agent, target } = on(servers[id % servers.length]!);
      for (let seq = 0; !stopping; seq++) {
        try {
          const res = await httpRequest(
            agent,
            target,
            "GET",
            `/v1/kv/soak/k/${(id + seq * 31) % KEYS}?stale`,
          );
          if (res.status !== 200 && res.status !== 404) throw new Error(`stale GET: ${res.status}`);
          window.reads++;
        } catch (err) {
          window.fail(err);
        }
      }
    };
    const watcher = async (id: number) => {
      const { agent, target } = on(servers[id % servers.length]!);
      const path = `/v1/kv/soak/w/${id % WATCHED}`;
      let index = 1;
      while (!stopping) {
        try {
          const res = await httpRequest(agent, target, "GET", `${path}?stale&index=${index}&wait=20s`);
          if (res.status !== 200 && res.status !== 404) throw new Error(`blocking GET: ${res.status}`);
          const next = Number(res.headers["x-consul-index"]);
          if (next > index) window.wakes++;
          index = next < index ? 1 : next;
        } catch (err) {
          window.fail(err);
          await sleep(100);
        }
      }
    };
    const sessions = async () => {
      const ids: string[] = [];
      for (let i = 0; i < SESSIONS; i++) {
        const res = await ok(lead.agent, lead.target, "PUT", "/v1/session/create", '{"TTL":"15s"}');
        ids.push((JSON.parse(res.body.toString()) as { ID: string }).ID);
      }
      while (!stopping) {
        await sleep(5_000);
        for (const id of ids) {
          try {
            await ok(lead.agent, lead.target, "PUT", `/v1/session/renew/${id}`);
            window.renewals++;
          } catch (err) {
            window.fail(err);
          }
        }
      }
    };

    log(
      `load: ${WRITERS} writers, ${READERS} stale readers, ${WATCHERS} blocking queries, ${SESSIONS} sessions, ${MINUTES} min`,
    );
    const load = [
      ...Array.from({ length: WRITERS }, (_, i) => writer(i)),
      ...Array.from({ length: READERS }, (_, i) => reader(i)),
      ...Array.from({ length: WATCHERS }, (_, i) => watcher(i)),
      sessions(),
    ];

    const started = performance.now();
    const end = started + MINUTES * 60_000;
    let last = started;
    const pids = servers.map((s) => s.process.pid);
    let cpu = readCpu(leader.process.pid, pids);
    while (performance.now() < end) {
      await sleep(SAMPLE_MS);
      const now = performance.now();
      const w = window;
      window = new Window();
      const seconds = (now - last) / 1000;
      last = now;
      const before = cpu;
      cpu = readCpu(leader.process.pid, pids);
      const after = cpu;
      const cores = (f: (r: CpuReading) => number) => (f(after) - f(before)) / seconds;
      const serverCores = cores((r) => r.servers);
      const generatorCores = cores((r) => r.generator);
      const sample: Sample = {
        minute: (now - started) / 60_000,
        writesPerSec: w.writes / seconds,
        readsPerSec: w.reads / seconds,
        wakesPerSec: w.wakes / seconds,
        writeP99: w.writeLatency.percentile(99),
        leaderHeapMB: (await heapBytes(lead.agent, lead.target).catch(() => Number.NaN)) / 1e6,
        leaderRssMB: rssBytes(leader.process.pid) / 1e6,
        diskMB: servers.reduce((sum, s) => sum + dirBytes(join(root, s.name)), 0) / 1e6,
        leaderFds: openFds(leader.process.pid),
        errors: w.errors,
        leaderCores: cores((r) => r.leader),
        serverCores,
        generatorCores,
        otherCores: Math.max(0, cores((r) => r.machine) - serverCores - generatorCores),
        stealCores: cores((r) => r.steal),
      };
      samples.push(sample);
      log(
        `${sample.minute.toFixed(1)} min: ${Math.round(sample.writesPerSec)} writes/s (p99 ${formatMs(sample.writeP99)} ms), ` +
          `${Math.round(sample.readsPerSec)} reads/s, heap ${sample.leaderHeapMB.toFixed(0)} MB, RSS ${sample.leaderRssMB.toFixed(0)} MB, ` +
          `disk ${sample.diskMB.toFixed(0)} MB, ${sample.leaderFds} fds, CPU cores leader ${sample.leaderCores.toFixed(2)} ` +
          `servers ${sample.serverCores.toFixed(2)} generator ${sample.generatorCores.toFixed(2)} ` +
          `others ${sample.otherCores.toFixed(2)} steal ${sample.stealCores.toFixed(2)}` +
          (w.errors ? `, ${w.errors} errors (first: ${w.firstError})` : ""),
      );
    }
    stopping = true;
    log("stopping the load (blocking queries end within their wait)");
    await Promise.all(load);
    for (const agent of agents.values()) agent.destroy();
  } finally {
    stopping = true;
    await stopAll();
    if (values.keep) log(`data and logs kept in ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
  await report(samples, loadBefore);
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

async function report(samples: Sample[], loadBefore: string): Promise<void> {
  const steady = samples.filter((s) => s.minute >= WARMUP_MIN);
  const half = Math.floor(steady.length / 2);
  const first = steady.slice(0, half);
  const second = steady.slice(half);
  const pts = (f: (s: Sample) => number) => steady.map((s): [number, number] => [s.minute, f(s)]);
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
      `${slope(pts((s) => s.diskMB)).toFixed(2)} MB, descriptors ${slope(pts((s) => s.leaderFds)).toFixed(2)}; ` +
      `disk between ${Math.min(...steady.map((s) => s.diskMB)).toFixed(0)} and ${Math.max(...steady.map((s) => s.diskMB)).toFixed(0)} MB; ` +
      `${samples.reduce((n, s) => n + s.errors, 0)} failed operations. CPU in cores, first half -> second half: ` +
      `servers ${halves((s) => s.serverCores)}, load generator ${halves((s) => s.generatorCores)}, the rest of the ` +
      `machine (other processes and steal) ${halves((s) => s.otherCores + s.stealCores)}.`,
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
