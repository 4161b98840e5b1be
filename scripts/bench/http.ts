// HTTP KV benchmark, Cairn and etcd side by side (not a test). Each system runs as a three-server cluster
// on loopback with fsync on (spawned processes, temp data dirs); the two take turns cell by cell, driven by
// the same closed-loop keep-alive load generator with the same 100-byte values and key space:
//   PUT                 to the leader                       (etcd: /v3/kv/put)
//   GET default         to the leader                       (etcd: linearizable /v3/kv/range)
//   GET stale           spread over all servers             (etcd: serializable /v3/kv/range)
// Then 10,000 blocking queries held on Cairn's leader: its RSS before and after, and the time from a
// change of their key until all of them are answered; and the same on a bare node:http server, the floor
// that Node and the machine set for those two figures. The two take turns `--wake-rounds` times and the
// time goal is judged on the median of the rounds' ratios: the floor alone moves by a quarter between runs
// on these shared machines, so one pair of figures says little. Memory is the first round's: the later ones
// reuse what the allocator kept. Last, 50,000 held at once, spread over the three
// servers, every one of which must be answered: each server's share is held by its own helper process
// (held-child.ts), since one process may hold only as many connections as the open-file limit allows
// (20,000 on the benchmark machines, whose containers cannot raise it).
//
//   node --import tsx scripts/bench/http.ts [--seconds 10] [--clients 1,16,64,256] [--keys 10000]
//        [--systems cairn,etcd] [--ops put,get-default,get-consistent,get-local] [--rounds 3] [--warm-seconds 5]
//        [--watchers 10000] [--wake-rounds 5] [--watchers-max 50000] [--cpu-prof] [--keep] [--generator wrk|node]
//
// The load generator is Debian's wrk by default (installed when missing): C, so it costs far less CPU per
// request than a Node client and is not what limits the figures on two cores; its own CPU is reported.
// Reads over all servers run one wrk per server at once, each with its share of the clients; their
// percentiles are the worst of the per-server ones.

import { mkdtemp, rm } from "node:fs/promises";
import type { Agent } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { AgentProcess } from "../lib/agent.js";
import { startCairnCluster } from "../lib/cluster.js";
import { spawnTracked, stop, stopAll } from "../lib/processes.js";
import { sleep, waitFor } from "../lib/wait.js";
import { useBuiltAgents } from "./lib/built.js";
import { descriptorLimit } from "./lib/descriptors.js";
import { startEtcdCluster } from "./lib/etcd-cluster.js";
import { endingsSummary, type HeldRequests, holdRequests } from "./lib/held-requests.js";
import { type HttpResponse, type HttpTarget, httpOk, keepAliveAgent } from "./lib/http-client.js";
import { cairnKv, etcdKv, type KvDriver, type ReadMode } from "./lib/kv-drivers.js";
import { type LoadResult, runLoad } from "./lib/load.js";
import { median } from "./lib/median.js";
import { cpuSeconds, machineCpuSeconds, rssBytes } from "./lib/proc-stats.js";
import { formatMB, formatMs, formatRate, markdownTable } from "./lib/table.js";
import { ensureWrk, runWrk, type WrkResult } from "./lib/wrk.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "1" },
    clients: { type: "string", default: "1,16,64,256" },
    keys: { type: "string", default: "10000" },
    "value-bytes": { type: "string", default: "100" },
    systems: { type: "string", default: "cairn,etcd" },
    watchers: { type: "string", default: "10000" },
    rounds: { type: "string", default: "3" },
    "warm-seconds": { type: "string", default: "5" },
    "wake-rounds": { type: "string", default: "5" },
    "watchers-max": { type: "string", default: "50000" },
    ops: { type: "string", default: "put,get-default,get-consistent,get-local" },
    "cpu-prof": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    generator: { type: "string", default: "wrk" },
  },
});
if (values.generator !== "wrk" && values.generator !== "node")
  throw new Error(`--generator must be wrk or node, not ${JSON.stringify(values.generator)}`);
const useWrk = values.generator === "wrk";
const durationMs = Number(values.seconds) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const clientCounts = values.clients.split(",").map(Number);
const keyCount = Number(values.keys);
const value = Buffer.alloc(Number(values["value-bytes"]), "v");
const systems = new Set(values.systems.split(","));
const watchers = Number(values.watchers);
const rounds = Math.max(1, Number(values.rounds));
const warmAllMs = Number(values["warm-seconds"]) * 1000;
const wakeRounds = Math.max(1, Number(values["wake-rounds"]));
/** The most blocking queries held at once over the servers: each must be answered, none refused or dropped. */
const watchersMax = Number(values["watchers-max"]);
const CLUSTER_SIZE = 3;

const log = (line: string) => console.error(`[http-bench] ${line}`);
const keyName = (i: number) => `bench/key-${i.toString().padStart(8, "0")}`;
/** Workers walk the key space on different strides so concurrent operations rarely share a key. */
const keyFor = (worker: number, seq: number) => keyName((worker * 7919 + seq * 104_729) % keyCount);

type Operation = "put" | "get-default" | "get-consistent" | "get-local";
const OPERATIONS = (["put", "get-default", "get-consistent", "get-local"] as const).filter((op) =>
  values.ops.split(",").includes(op),
);

interface Cluster {
  leader: HttpTarget;
  all: HttpTarget[];
  leaderPid: number;
  pids: number[];
}

interface CellResult extends LoadResult {
  /** CPU used during the cell, in cores: the leader, all servers together, the load generator. */
  leaderCores: number;
  clusterCores: number;
  generatorCores: number;
}

type Results = Map<string, CellResult[]>; // `${operation}/${clients}` -> one result per round

async function withAgents<T>(targets: HttpTarget[], clients: number, fn: (agents: Agent[]) => Promise<T>) {
  const agents = targets.map(() => keepAliveAgent(clients));
  try {
    return await fn(agents);
  } finally {
    for (const a of agents) a.destroy();
  }
}

async function prefill(driver: KvDriver, cluster: Cluster): Promise<void> {
  await withAgents([cluster.leader], 64, async ([agent]) => {
    let next = 0;
    const worker = async () => {
      while (next < keyCount) await driver.put(agent!, cluster.leader, keyName(next++), value);
    };
    await Promise.all(Array.from({ length: 64 }, worker));
  });
}

async function runCell(
  driver: KvDriver,
  cluster: Cluster,
  op: Operation,
  clients: number,
  ms = durationMs,
): Promise<CellResult> {
  const targets = op === "get-local" ? cluster.all : [cluster.leader];
  if (useWrk) await wrkLoad(driver, targets, op, clients, warmupMs); // wrk's own connections, warmed
  const started = performance.now();
  const cpuBefore = cluster.pids.map(cpuSeconds);
  const generatorBefore = process.cpuUsage();
  const result = useWrk
    ? await wrkLoad(driver, targets, op, clients, ms)
    : await nodeLoad(driver, targets, op, clients, ms);
  const seconds = (performance.now() - started) / 1000;
  const used = cluster.pids.map((pid, k) => cpuSeconds(pid) - cpuBefore[k]!);
  const generator = process.cpuUsage(generatorBefore);
  return {
    ...result,
    leaderCores: used[cluster.pids.indexOf(cluster.leaderPid)]! / seconds,
    clusterCores: used.reduce((a, b) => a + b, 0) / seconds,
    generatorCores:
      "generatorCores" in result
        ? (result as WrkResult).generatorCores
        : (generator.user + generator.system) / 1e6 / seconds,
  };
}

function nodeLoad(
  driver: KvDriver,
  targets: HttpTarget[],
  op: Operation,
  clients: number,
  ms: number,
): Promise<LoadResult> {
  return withAgents(targets, clients, (agents) => {
    const mode = readModeOf(op);
    return runLoad({
      concurrency: clients,
      durationMs: ms,
      warmupMs,
      op: (worker, seq) => {
        const i = worker % targets.length;
        const key = keyFor(worker, seq);
        return op === "put"
          ? driver.put(agents[i]!, targets[i]!, key, value)
          : driver.get(agents[i]!, targets[i]!, key, mode);
      },
    });
  });
}

function readModeOf(op: Operation): ReadMode {
  return op === "get-local" ? "local" : op === "get-consistent" ? "consistent" : "default";
}

/** One wrk per target, all at once, the clients split between them; throughput adds up, latency is the worst. */
async function wrkLoad(
  driver: KvDriver,
  targets: HttpTarget[],
  op: Operation,
  clients: number,
  ms: number,
): Promise<WrkResult> {
  const mode = readModeOf(op);
  const requests = Array.from({ length: keyCount }, (_, i) =>
    op === "put" ? driver.putRequest(keyName(i), value) : driver.getRequest(keyName(i), mode),
  );
  const runs = await Promise.all(
    targets.map((target, i) => {
      const connections = Math.max(
        1,
        Math.floor(clients / targets.length) + (i < clients % targets.length ? 1 : 0),
      );
      return runWrk({
        target,
        requests,
        connections,
        threads: Math.min(2, connections),
        seconds: Math.max(1, Math.round(ms / 1000)),
      });
    }),
  );
  const worst = (f: (r: WrkResult) => number) => Math.max(...runs.map(f));
  const sum = (f: (r: WrkResult) => number) => runs.reduce((a, r) => a + f(r), 0);
  return {
    concurrency: clients,
    ops: sum((r) => r.ops),
    errors: sum((r) => r.errors),
    seconds: worst((r) => r.seconds),
    opsPerSec: sum((r) => r.opsPerSec),
    p50: worst((r) => r.p50),
    p99: worst((r) => r.p99),
    p999: worst((r) => r.p999),
    max: worst((r) => r.max),
    generatorCores: sum((r) => r.generatorCores),
    ...(runs.some((r) => r.firstError) ? { firstError: runs.find((r) => r.firstError)?.firstError } : {}),
  };
}

interface System {
  driver: KvDriver;
  cluster: Cluster;
  results: Results;
}

/**
 * Both systems are up at once and take turns cell by cell, so a change in the machine's background load
 * during the run hits both sides of a comparison alike (the idle cluster only sends heartbeats). Every cell
 * is run `--rounds` times, the order of the systems swapped each round, and a comparison is judged on the
 * median of its rounds' ratios: the same build's write ratio spanned 1.41-1.72x in single full runs here,
 * more than any change these goals are about.
 */
async function runCells(systemsUnderTest: System[]): Promise<void> {
  for (const { driver, cluster } of systemsUnderTest) {
    log(`${driver.system}: prefilling ${keyCount} keys`);
    await prefill(driver, cluster);
  }
  // A Node process is slow for its first seconds of a load, while V8 compiles its hot paths and sizes its
  // heap: a fresh leader took 9,372 writes/s from 64 clients in its first 5 s and 11,000-12,600 in each of
  // the next five, and round 1's first cell is that leader's first load. So every system serves every
  // operation for --warm-seconds before the rounds, unrecorded.
  for (const { driver, cluster } of warmAllMs > 0 ? systemsUnderTest : []) {
    for (const op of OPERATIONS) {
      const r = await runCell(driver, cluster, op, Math.max(...clientCounts), warmAllMs);
      log(`${driver.system} warm-up ${op}: ${formatRate(r.opsPerSec)} ops/s (not counted)`);
    }
  }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? systemsUnderTest : [...systemsUnderTest].reverse();
    for (const op of OPERATIONS) {
      for (const clients of clientCounts) {
        for (const { driver, cluster, results } of order) {
          const r = await runCell(driver, cluster, op, clients);
          log(
            `${rounds > 1 ? `round ${round + 1} of ${rounds}: ` : ""}${driver.system} ${op} x${clients}: ` +
              `${formatRate(r.opsPerSec)} ops/s p50 ${formatMs(r.p50)} p99 ${formatMs(r.p99)} ms, ` +
              `CPU cores leader ${r.leaderCores.toFixed(2)} all servers ${r.clusterCores.toFixed(2)} load generator ${r.generatorCores.toFixed(2)}` +
              (r.errors ? ` (${r.errors} errors, first: ${r.firstError})` : ""),
          );
          const key = `${op}/${clients}`;
          results.set(key, [...(results.get(key) ?? []), r]);
        }
      }
    }
  }
}

interface BlockingResult {
  watchers: number;
  rssBefore: number;
  rssAfter: number;
  putMs: number;
  firstAnsweredMs: number;
  allAnsweredMs: number;
  answered: number;
  failed: number;
  /** The server's CPU while it woke them, and in the second before (see `WakeCost`). */
  cost: WakeCost;
  /** What the woken queries were answered (read once more afterwards: the same index, the same bytes). */
  answer: WireAnswer;
}

/**
 * Holds `count` blocking GETs on one key of one server, then changes the key and times how long until
 * the last of them has its answer.
 */
async function blockingQueries(target: HttpTarget, pid: number, count: number): Promise<BlockingResult> {
  const key = "bench/watched";
  const control = keepAliveAgent(1);
  let held: HeldRequests | undefined;
  try {
    await httpOk(control, target, "PUT", `/v1/kv/${key}`, "before");
    const first = await httpOk(control, target, "GET", `/v1/kv/${key}`);
    const index = String(first.headers["x-consul-index"]);
    await sleep(1000);
    const rssBefore = rssBytes(pid);

    held = await holdRequests(target, `/v1/kv/${key}?index=${index}&wait=5m`, count);
    // Give the server time to read every request and park it.
    await sleep(3000);
    const rssAfter = rssBytes(pid);
    const early = held.answeredAt.length + held.lost;
    if (early > 0) log(`${early} blocking queries ended before the change: ${endingsSummary(held.endings)}`);

    const meter = await wakeMeter(pid);
    const t0 = performance.now();
    await httpOk(control, target, "PUT", `/v1/kv/${key}`, "after");
    const putMs = performance.now() - t0;
    await held.settled(30_000);
    const cost = meter();
    const answers = held.answeredAt;
    const answer = wireAnswer(await httpOk(control, target, "GET", `/v1/kv/${key}`));
    return {
      answer,
      watchers: count,
      rssBefore,
      rssAfter,
      putMs,
      firstAnsweredMs: (answers[0] ?? Number.NaN) - t0,
      allAnsweredMs: answers.length === count ? answers[count - 1]! - t0 : Number.NaN,
      answered: answers.length - held.notOk,
      failed: held.notOk + held.lost,
      cost,
    };
  } finally {
    held?.close();
    control.destroy();
  }
}

// The floor for the blocking-query figures: a bare node:http server that parks each request and, on
// /release, answers every parked one with a two-byte body. Same machine, same held-request client. Given
// FLOOR_ANSWER (the headers and body Cairn woke its queries with), it answers with those bytes instead: what
// Node itself takes to write the API's answer, apart from anything Cairn does.
const FLOOR_SERVER = `
const held = [];
const given = process.env.FLOOR_ANSWER ? JSON.parse(process.env.FLOOR_ANSWER) : undefined;
const body = given ? Buffer.from(given.body, "base64") : undefined;
require("node:http")
  .createServer((req, res) => {
    if (req.url !== "/release") return void held.push(res);
    for (const r of held.splice(0)) {
      if (given) {
        r.writeHead(200, given.headers);
        r.end(body);
      } else r.end("[]");
    }
    res.end();
  })
  .listen(0, "127.0.0.1", function () { console.log("port " + this.address().port); });
`;

/** A woken blocking query's answer as Cairn sent it, less the headers Node adds to every response itself. */
interface WireAnswer {
  headers: Record<string, string>;
  body: Buffer;
}

const NODE_OWN_HEADERS = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);

function wireAnswer(res: HttpResponse): WireAnswer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (!NODE_OWN_HEADERS.has(name) && typeof value === "string") headers[name] = value;
  }
  return { headers, body: res.body };
}

interface FloorResult {
  rssCost: number;
  allAnsweredMs: number;
  cost: WakeCost;
}

/**
 * What a server spent while it woke its held requests, to tell a server that did more work from one that got
 * less of the machine: its CPU from the change until the last answer arrived, its CPU per second over the
 * second before (background work such as a compaction), and the time the hypervisor gave to other guests
 * during the wake. /proc counts in 10 ms ticks.
 */
interface WakeCost {
  cpuMs: number;
  idleCores: number;
  stealMs: number;
}

/** Starts measuring `pid`'s wake after a second of watching it idle; the function returns the cost so far. */
async function wakeMeter(pid: number): Promise<() => WakeCost> {
  const quietFrom = cpuSeconds(pid);
  await sleep(1000);
  const cpu0 = cpuSeconds(pid);
  const steal0 = machineCpuSeconds().steal;
  return () => ({
    cpuMs: (cpuSeconds(pid) - cpu0) * 1000,
    idleCores: cpu0 - quietFrom,
    stealMs: (machineCpuSeconds().steal - steal0) * 1000,
  });
}

async function nodeHttpFloor(count: number, answer?: WireAnswer): Promise<FloorResult> {
  const env = answer
    ? {
        ...process.env,
        FLOOR_ANSWER: JSON.stringify({ headers: answer.headers, body: answer.body.toString("base64") }),
      }
    : process.env;
  const server = spawnTracked("node-http-floor", process.execPath, ["-e", FLOOR_SERVER], { env });
  const control = keepAliveAgent(1);
  let held: HeldRequests | undefined;
  try {
    const port = await waitFor("the floor server's port", async () => {
      const match = /port (\d+)/.exec(server.tail());
      return match ? Number(match[1]) : undefined;
    });
    const target = { host: "127.0.0.1", port };
    await sleep(500);
    const before = rssBytes(server.pid);
    held = await holdRequests(target, "/v1/kv/bench/watched?index=2&wait=5m", count);
    await sleep(3000);
    const rssCost = rssBytes(server.pid) - before;
    const meter = await wakeMeter(server.pid);
    const t0 = performance.now();
    await httpOk(control, target, "GET", "/release");
    await held.settled(30_000);
    const cost = meter();
    const answers = held.answeredAt;
    return { rssCost, allAnsweredMs: answers.length === count ? answers[count - 1]! - t0 : Number.NaN, cost };
  } finally {
    held?.close();
    control.destroy();
    await stop(server, 1000);
  }
}

interface SpreadResult {
  watchers: number;
  servers: number;
  answered: number;
  failed: number;
  /** From the PUT being sent until the last of them was answered. */
  allAnsweredMs: number;
  /** RSS growth of all servers together while they held the queries. */
  rssGrowth: number;
}

const HELD_CHILD = fileURLToPath(new URL("./held-child.ts", import.meta.url));

/**
 * `count` blocking queries on one key spread evenly over `servers`, each server's share held by its own
 * helper process (held-child.ts): one process may hold only as many connections as the open-file limit
 * allows, on either end, and here no process may raise it. One PUT to the leader wakes them all.
 */
async function heldAcrossServers(
  servers: readonly AgentProcess[],
  leader: HttpTarget,
  count: number,
): Promise<SpreadResult> {
  const limit = descriptorLimit();
  const shares = servers.map(
    (_, i) => Math.floor(count / servers.length) + (i < count % servers.length ? 1 : 0),
  );
  if (shares[0]! + 2_000 > limit)
    throw new Error(
      `${shares[0]} held queries per server need more open files than the limit (${limit}): raise it with ulimit -n`,
    );
  const key = "bench/spread";
  const control = keepAliveAgent(1);
  try {
    await httpOk(control, leader, "PUT", `/v1/kv/${key}`, "before");
    const first = await httpOk(control, leader, "GET", `/v1/kv/${key}`);
    const path = `/v1/kv/${key}?index=${String(first.headers["x-consul-index"])}&wait=5m`;
    // Every server has applied the PUT before any query is held (they are answered at once otherwise).
    for (const s of servers) {
      await waitFor(`${s.name} to have applied the first PUT`, async () => {
        const r = await httpOk(control, s.http, "GET", `/v1/kv/${key}?stale`).catch(() => undefined);
        return r !== undefined || undefined;
      });
    }
    const rssBefore = servers.map((s) => rssBytes(s.process.pid));
    const children = servers.map((s, i) =>
      spawnTracked(`held-${s.name}`, process.execPath, [
        ...process.execArgv,
        HELD_CHILD,
        s.http.host,
        String(s.http.port),
        path,
        String(shares[i]),
      ]),
    );
    for (const child of children) {
      await waitFor(
        `${child.name} to hold its queries`,
        async () => child.tail().includes("connected") || undefined,
        180_000,
      );
    }
    await sleep(3000);
    const rssGrowth = servers.reduce((sum, s, i) => sum + rssBytes(s.process.pid) - rssBefore[i]!, 0);
    const putSent = performance.timeOrigin + performance.now();
    await httpOk(control, leader, "PUT", `/v1/kv/${key}`, "after");
    const results = await Promise.all(
      children.map(async (child) => {
        await child.exited;
        const line = /^result (.*)$/m.exec(child.tail());
        if (!line) throw new Error(`${child.name} reported no result:\n${child.tail()}`);
        return JSON.parse(line[1]!) as { answered: number; failed: number; last: number | null };
      }),
    );
    const lasts = results.map((r) => r.last);
    return {
      watchers: count,
      servers: servers.length,
      answered: results.reduce((sum, r) => sum + r.answered, 0),
      failed: results.reduce((sum, r) => sum + r.failed, 0),
      allAnsweredMs: lasts.every((l) => l !== null) ? Math.max(...(lasts as number[])) - putSent : Number.NaN,
      rssGrowth,
    };
  } finally {
    control.destroy();
  }
}

const LABELS: Record<Operation, string> = {
  put: "PUT (leader)",
  "get-default": "GET default (lease) / linearizable (leader)",
  "get-consistent": "GET ?consistent / linearizable (leader)",
  "get-local": "GET stale / serializable (all servers)",
};

/** A cell's rounds summed up: each figure the median over the rounds on its own, operations and errors summed. */
function summarize(runs: readonly CellResult[] | undefined): CellResult | undefined {
  const [first] = runs ?? [];
  if (!runs || !first) return undefined;
  const m = (f: (r: CellResult) => number) => median(runs.map(f));
  const firstError = runs.find((r) => r.firstError)?.firstError;
  return {
    concurrency: first.concurrency,
    ops: runs.reduce((sum, r) => sum + r.ops, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    seconds: m((r) => r.seconds),
    opsPerSec: m((r) => r.opsPerSec),
    p50: m((r) => r.p50),
    p99: m((r) => r.p99),
    p999: m((r) => r.p999),
    max: Math.max(...runs.map((r) => r.max)),
    leaderCores: m((r) => r.leaderCores),
    clusterCores: m((r) => r.clusterCores),
    generatorCores: m((r) => r.generatorCores),
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/**
 * Cairn's figure over etcd's for one cell, round by round (the two measured back to back), and the median
 * of those ratios, on which the goals are judged: a pair shares the machine's mood of the moment.
 */
function pairedRatios(
  cairn: readonly CellResult[] | undefined,
  etcd: readonly CellResult[] | undefined,
  figure: (r: CellResult) => number,
): { each: number[]; median: number } {
  const each = (cairn ?? []).flatMap((c, i) => {
    const e = etcd?.[i];
    return e ? [figure(c) / figure(e)] : [];
  });
  return { each, median: median(each) };
}

const formatRatios = (xs: readonly number[]) => xs.map((x) => `${x.toFixed(2)}x`).join(", ");

function renderTable(cairn: Results | undefined, etcd: Results | undefined): string {
  const rows: string[][] = [];
  for (const op of OPERATIONS) {
    for (const clients of clientCounts) {
      const cRuns = cairn?.get(`${op}/${clients}`);
      const eRuns = etcd?.get(`${op}/${clients}`);
      const c = summarize(cRuns);
      const e = summarize(eRuns);
      const throughput = pairedRatios(cRuns, eRuns, (r) => r.opsPerSec);
      const p99 = pairedRatios(cRuns, eRuns, (r) => r.p99);
      const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : "-");
      const errs = (r: CellResult | undefined) => (r?.errors ? ` (${r.errors} err)` : "");
      const cpu = (r: CellResult | undefined) =>
        r ? `${r.leaderCores.toFixed(2)} / ${r.clusterCores.toFixed(2)}` : "-";
      rows.push([
        LABELS[op],
        String(clients),
        c ? formatRate(c.opsPerSec) + errs(c) : "-",
        c ? formatMs(c.p50) : "-",
        c ? formatMs(c.p99) : "-",
        c ? formatMs(c.p999) : "-",
        cpu(c),
        e ? formatRate(e.opsPerSec) + errs(e) : "-",
        e ? formatMs(e.p50) : "-",
        e ? formatMs(e.p99) : "-",
        e ? formatMs(e.p999) : "-",
        cpu(e),
        ratio(throughput.median),
        ratio(p99.median),
        `${c ? c.generatorCores.toFixed(2) : "-"} / ${e ? e.generatorCores.toFixed(2) : "-"}`,
        ...(rounds > 1 ? [formatRatios(throughput.each) || "-"] : []),
      ]);
    }
  }
  return markdownTable(
    [
      "operation",
      "clients",
      "Cairn ops/s",
      "Cairn p50 ms",
      "Cairn p99 ms",
      "Cairn p99.9 ms",
      "Cairn CPU leader / all",
      "etcd ops/s",
      "etcd p50 ms",
      "etcd p99 ms",
      "etcd p99.9 ms",
      "etcd CPU leader / all",
      "ops/s Cairn/etcd",
      "p99 Cairn/etcd",
      "generator CPU Cairn / etcd",
      ...(rounds > 1 ? ["ops/s Cairn/etcd by round"] : []),
    ],
    rows,
  );
}

/** One turn of the held-query comparison: Cairn (when under test), the floor, the floor with Cairn's bytes. */
interface WakeRound {
  blocking?: BlockingResult;
  floor: FloorResult;
  sameBytes?: FloorResult;
}

function renderGoals(
  cairn: Results | undefined,
  etcd: Results | undefined,
  wakes: readonly WakeRound[],
  most?: SpreadResult,
): string {
  const lines: string[] = [];
  const check = (ok: boolean) => (ok ? "met" : "NOT met");
  // Issue #19's goals against etcd, measured in this run.
  const of = rounds > 1 ? `, median of ${rounds} rounds` : "";
  const each = (xs: readonly number[]) => (xs.length > 1 ? ` (rounds: ${formatRatios(xs)})` : "");
  for (const clients of [64, 256]) {
    const cRuns = cairn?.get(`put/${clients}`);
    const eRuns = etcd?.get(`put/${clients}`);
    const c = summarize(cRuns);
    const e = summarize(eRuns);
    if (!c || !e) continue;
    const throughput = pairedRatios(cRuns, eRuns, (r) => r.opsPerSec);
    const p99 = pairedRatios(cRuns, eRuns, (r) => r.p99);
    lines.push(
      `- ${clients} clients${of}, PUT throughput >= 1.5x etcd: ${throughput.median.toFixed(2)}x${each(throughput.each)} (${check(throughput.median >= 1.5)}); ` +
        `p99 <= etcd: ${p99.median.toFixed(2)}x${each(p99.each)}, medians ${formatMs(c.p99)} vs ${formatMs(e.p99)} ms (${check(p99.median <= 1)}); ` +
        `p99.9 ${formatMs(c.p999)} vs ${formatMs(e.p999)} ms`,
    );
  }
  const reads: Array<[Operation, string, number]> = [
    ["get-local", "stale reads >= 2.5x etcd serializable", 2.5],
    ["get-consistent", "consistent reads >= 2x etcd linearizable", 2],
  ];
  for (const [op, goal, factor] of reads) {
    const throughput = pairedRatios(cairn?.get(`${op}/64`), etcd?.get(`${op}/64`), (r) => r.opsPerSec);
    if (throughput.each.length > 0) {
      lines.push(
        `- 64 clients${of}, ${goal}: ${throughput.median.toFixed(2)}x${each(throughput.each)} (${check(throughput.median >= factor)})`,
      );
    }
  }
  for (const [i, { blocking, floor, sameBytes }] of wakes.entries()) {
    const round = wakes.length > 1 ? `round ${i + 1} of ${wakes.length}: ` : "";
    if (blocking) {
      const cost = blocking.rssAfter - blocking.rssBefore;
      // Only the first holding grows the process; later ones reuse what the allocator kept from it.
      const rss =
        i === 0
          ? `RSS ${formatMB(blocking.rssBefore)} -> ${formatMB(blocking.rssAfter)} (+${formatMB(cost)}; goal < 200 MB: ${check(cost < 200e6)}); `
          : "";
      lines.push(
        `- ${round}${blocking.watchers} blocking queries: ${rss}` +
          `from the PUT being sent: first answer ${formatMs(blocking.firstAnsweredMs)} ms, PUT acknowledged ${formatMs(blocking.putMs)} ms, ` +
          `all answered ${formatMs(blocking.allAnsweredMs)} ms (goal < 200 ms: ${check(blocking.allAnsweredMs < 200)}); ` +
          `${blocking.answered} answered 200, ${blocking.failed} failed; ${formatCost(blocking.cost)}`,
      );
    }
    lines.push(
      `- ${round}the same on a bare node:http server that only parks and answers (the floor on this machine): +${formatMB(floor.rssCost)}, all answered ${formatMs(floor.allAnsweredMs)} ms after the release request was sent; ${formatCost(floor.cost)}`,
    );
    if (blocking && sameBytes) {
      // Each header line is "name: value\r\n".
      const bytes = Object.entries(blocking.answer.headers).reduce(
        (sum, [name, value]) => sum + name.length + value.length + 4,
        blocking.answer.body.length,
      );
      lines.push(
        `- ${round}the same bare server answering with the headers and body Cairn woke them with (${bytes} bytes besides Node's own headers): ` +
          `all answered ${formatMs(sameBytes.allAnsweredMs)} ms; Cairn woken ${(blocking.allAnsweredMs / sameBytes.allAnsweredMs).toFixed(2)}x its time, ` +
          `which is itself ${(sameBytes.allAnsweredMs / floor.allAnsweredMs).toFixed(2)}x the floor's; ${formatCost(sameBytes.cost)}`,
      );
    }
  }
  const paired = wakes.flatMap(({ blocking, floor }) => (blocking ? [{ blocking, floor }] : []));
  if (paired.length > 0) {
    const times = paired.map(({ blocking, floor }) => blocking.allAnsweredMs / floor.allAnsweredMs);
    const [first] = paired;
    const memory = first
      ? (first.blocking.rssAfter - first.blocking.rssBefore) / first.floor.rssCost
      : Number.NaN;
    // A round in which not every query was answered has no time: then neither has the median.
    const time = times.some(Number.isNaN) ? Number.NaN : median(times);
    lines.push(
      `- blocking queries against the floor${paired.length > 1 ? `, median of ${paired.length} rounds` : ""}: ` +
        `woken ${time.toFixed(2)}x its time${each(times)} (goal <= 1.1x: ${check(time <= 1.1)}), ` +
        `memory ${memory.toFixed(2)}x its cost, from the first round (goal <= 1.3x: ${check(memory <= 1.3)})`,
    );
  }
  if (most) {
    const all = most.answered === most.watchers && most.failed === 0;
    lines.push(
      `- ${most.watchers} blocking queries held at once, spread over the ${most.servers} servers: ${most.answered} answered 200, ${most.failed} refused or dropped ` +
        `(goal: every one answered: ${check(all)}); servers' RSS +${formatMB(most.rssGrowth)}, all answered ${formatMs(most.allAnsweredMs)} ms after the PUT was sent`,
    );
  }
  return lines.join("\n");
}

function formatCost({ cpuMs, idleCores, stealMs }: WakeCost): string {
  return `server CPU ${cpuMs.toFixed(0)} ms until the last answer (${idleCores.toFixed(2)} cores the second before), steal ${stealMs.toFixed(0)} ms`;
}

const loadAverage = () => loadavg()[0]!.toFixed(1);

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const root = await mkdtemp(join(tmpdir(), "cairn-http-bench-"));
  let cairn: Results | undefined;
  let etcd: Results | undefined;
  const wakes: WakeRound[] = [];
  let most: SpreadResult | undefined;
  let etcdVersion = "";
  const stops: Array<() => Promise<void>> = [];
  try {
    const underTest: System[] = [];
    let cairnLeader: AgentProcess | undefined;
    let cairnServers: readonly AgentProcess[] = [];
    if (systems.has("cairn")) {
      log(`starting ${CLUSTER_SIZE} Cairn servers`);
      // Profiles are written when a server exits; --cpu-prof implies --keep so they survive.
      const profileArgs = values["cpu-prof"]
        ? ["--cpu-prof", `--cpu-prof-dir=${join(root, "profiles")}`]
        : [];
      const cluster = await startCairnCluster(CLUSTER_SIZE, join(root, "cairn"), {
        nodeArgs: profileArgs,
      });
      stops.push(cluster.stop);
      cairnLeader = cluster.leader;
      cairnServers = cluster.servers;
      log(`Cairn leader: ${cluster.leader.name} (pid ${cluster.leader.process.pid})`);
      cairn = new Map();
      underTest.push({
        driver: cairnKv,
        cluster: {
          leader: cluster.leader.http,
          all: cluster.servers.map((s) => s.http),
          leaderPid: cluster.leader.process.pid,
          pids: cluster.servers.map((s) => s.process.pid),
        },
        results: cairn,
      });
    }
    if (systems.has("etcd")) {
      log(`starting ${CLUSTER_SIZE} etcd members`);
      const cluster = await startEtcdCluster(CLUSTER_SIZE, join(root, "etcd"));
      stops.push(cluster.stop);
      etcdVersion = cluster.version;
      log(`etcd ${cluster.version}, leader: ${cluster.leader.name}`);
      etcd = new Map();
      underTest.push({
        driver: etcdKv,
        cluster: {
          leader: cluster.leader.client,
          all: cluster.members.map((m) => m.client),
          leaderPid: cluster.leader.process.pid,
          pids: cluster.members.map((m) => m.process.pid),
        },
        results: etcd,
      });
    }
    if (useWrk) ensureWrk(log);
    await runCells(underTest);
    for (let round = 1; watchers > 0 && round <= wakeRounds; round++) {
      const turn = wakeRounds > 1 ? `round ${round} of ${wakeRounds}: ` : "";
      let blocking: BlockingResult | undefined;
      if (cairnLeader) {
        log(`${turn}holding ${watchers} blocking queries on ${cairnLeader.name}`);
        blocking = await blockingQueries(cairnLeader.http, cairnLeader.process.pid, watchers);
      }
      log(`${turn}holding ${watchers} requests on a bare node:http server (the floor)`);
      const floor = await nodeHttpFloor(watchers);
      let sameBytes: FloorResult | undefined;
      if (blocking) {
        log(`${turn}holding ${watchers} requests on a bare node:http server answering Cairn's bytes`);
        sameBytes = await nodeHttpFloor(watchers, blocking.answer);
      }
      wakes.push({ ...(blocking ? { blocking } : {}), floor, ...(sameBytes ? { sameBytes } : {}) });
    }
    if (cairnLeader && watchersMax > 0) {
      log(`holding ${watchersMax} blocking queries spread over the ${cairnServers.length} servers`);
      most = await heldAcrossServers(cairnServers, cairnLeader.http, watchersMax);
    }
  } finally {
    await Promise.all(stops.map((stopCluster) => stopCluster()));
    await stopAll();
    if (values.keep || values["cpu-prof"]) log(`data, logs and profiles kept in ${root}`);
    else await rm(root, { recursive: true, force: true });
  }

  console.log(
    `### HTTP KV: Cairn vs etcd${etcdVersion ? ` ${etcdVersion}` : ""}, ${CLUSTER_SIZE} servers each on loopback, fsync on\n`,
  );
  console.log(
    `${value.length}-byte values, ${keyCount} keys, ${values.seconds} s per cell after ${values.warmup} s warm-up, closed-loop keep-alive clients (${useWrk ? "wrk" : "a Node client"}; ` +
      "its CPU in cores in the last column); " +
      "CPU in cores used by the leader / all three servers during the cell; " +
      `the systems take turns cell by cell` +
      (rounds > 1
        ? `, ${rounds} rounds, which goes first swapped each round; each figure is the median over the rounds, ` +
          "each ratio the median of the rounds' ratios (listed in the last column for throughput)"
        : "") +
      `. Machine load average (1 min): ${loadBefore} before, ${loadAverage()} after.\n`,
  );
  console.log(renderTable(cairn, etcd));
  const goals = renderGoals(cairn, etcd, wakes, most);
  if (goals) console.log(`\nGoals:\n${goals}`);
}

useBuiltAgents();
main().catch(async (err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  await stopAll(1000);
  process.exit(1);
});
