// Catalog benchmark (not a test). Registers a catalog of nodes with a few service instances each through
// PUT /v1/catalog/register (each registration: the node, one service, one check on it), from concurrent
// keep-alive clients, and times that; then reads it for a fixed time at the same concurrency:
//   GET /v1/health/service/:name?passing        (about 10% of the checks are critical)
//   GET /v1/catalog/service/:name?filter=...    (ServiceMeta.env == "prod": half of the instances)
// Default: three servers on loopback with fsync on; --dev: one -dev agent. All requests go to the leader.
//
//   node --conditions=source --import tsx scripts/bench/catalog.ts [--dev] [--nodes 5000]
//        [--services-per-node 4] [--names 100] [--clients 64] [--seconds 10] [--warmup 1] [--keep]
//        [--cpu-prof DIR]   (the servers write V8 CPU profiles to DIR when they stop)
//        [--generator wrk|node]   (reads: wrk by default, plain and with Accept-Encoding: gzip as Go's
//                                  client sends it; node: the Node client, plain only)

import { mkdtemp, rm } from "node:fs/promises";
import type { Agent } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { AgentProcess } from "../lib/agent.js";
import { startCairnCluster, startCairnDev } from "../lib/cluster.js";
import { stopAll } from "../lib/processes.js";
import { useBuiltAgents } from "./lib/built.js";
import { type HttpTarget, httpOk, keepAliveAgent } from "./lib/http-client.js";
import { Latencies } from "./lib/latency.js";
import { type LoadResult, runLoad } from "./lib/load.js";
import { formatMs, formatRate, markdownTable } from "./lib/table.js";
import { ensureWrk, runWrk } from "./lib/wrk.js";

const { values } = parseArgs({
  options: {
    dev: { type: "boolean", default: false },
    nodes: { type: "string", default: "5000" },
    "services-per-node": { type: "string", default: "4" },
    names: { type: "string", default: "100" },
    clients: { type: "string", default: "64" },
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "1" },
    keep: { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
    generator: { type: "string", default: "wrk" },
  },
});
if (values.generator !== "wrk" && values.generator !== "node") throw new Error("--generator: wrk or node");
const NODES = Number(values.nodes);
const PER_NODE = Number(values["services-per-node"]);
const NAMES = Number(values.names);
const CLIENTS = Number(values.clients);
const durationMs = Number(values.seconds) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const CLUSTER_SIZE = 3;
const FILTER = 'ServiceMeta.env == "prod"';

const log = (line: string) => console.error(`[catalog-bench] ${line}`);
const loadAverage = () => loadavg()[0]!.toFixed(1);

/** One service instance of the catalog: which node, which of its slots, and what it looks like. */
interface Instance {
  node: number;
  slot: number;
  name: string;
  prod: boolean;
  passing: boolean;
}

/** Scatters consecutive integers (Fibonacci hashing), so that "one in ten" does not line up with a name. */
const spread = (n: number) => Math.imul(n, 0x9e3779b1) >>> 16;

const serviceName = (j: number) => `svc-${j.toString().padStart(3, "0")}`;

/**
 * Registration i is node i % NODES, slot i / NODES, so concurrent registrations mostly touch different
 * nodes. A node's slots get consecutive names, so every name has NODES * PER_NODE / NAMES instances, half
 * of them "prod" and about one in ten with a critical check.
 */
function instance(i: number): Instance {
  const node = i % NODES;
  const slot = Math.floor(i / NODES);
  return {
    node,
    slot,
    name: serviceName((node * PER_NODE + slot) % NAMES),
    prod: node % 2 === 0,
    passing: spread(node * PER_NODE + slot) % 10 !== 0,
  };
}

function registration(x: Instance): string {
  const node = `node-${x.node.toString().padStart(5, "0")}`;
  const serviceId = `${x.name}-${x.slot}`;
  return JSON.stringify({
    Node: node,
    Address: `10.${(x.node >> 16) & 255}.${(x.node >> 8) & 255}.${x.node & 255}`,
    NodeMeta: { rack: `r${x.node % 20}` },
    Service: {
      ID: serviceId,
      Service: x.name,
      Port: 8000 + x.slot,
      Tags: ["v1", x.prod ? "prod" : "staging"],
      Meta: { env: x.prod ? "prod" : "staging", version: "1.4.2" },
    },
    Check: {
      CheckID: `service:${serviceId}`,
      Name: `${x.name} health`,
      Status: x.passing ? "passing" : "critical",
      ServiceID: serviceId,
    },
  });
}

interface RegisterResult {
  ops: number;
  seconds: number;
  opsPerSec: number;
  p50: number;
  p99: number;
}

/** Every registration once, `CLIENTS` workers taking the next one as soon as their last is answered. */
async function registerAll(agent: Agent, target: HttpTarget, total: number): Promise<RegisterResult> {
  const latencies = new Latencies();
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const body = registration(instance(next++));
      const t0 = performance.now();
      await httpOk(agent, target, "PUT", "/v1/catalog/register", body, {
        "content-type": "application/json",
      });
      latencies.record(performance.now() - t0);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    ops: total,
    seconds,
    opsPerSec: total / seconds,
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
  };
}

const healthPath = (name: string) => `/v1/health/service/${name}?passing`;
const filterPath = (name: string) => `/v1/catalog/service/${name}?filter=${encodeURIComponent(FILTER)}`;

/** The reads return what was registered: a wrong answer would make their timings meaningless. */
async function checkAnswers(agent: Agent, target: HttpTarget, total: number): Promise<void> {
  const all = Array.from({ length: total }, (_, i) => instance(i)).filter((x) => x.name === serviceName(0));
  const expected = {
    [healthPath(serviceName(0))]: all.filter((x) => x.passing).length,
    [filterPath(serviceName(0))]: all.filter((x) => x.prod).length,
  };
  for (const [path, count] of Object.entries(expected)) {
    const res = await httpOk(agent, target, "GET", path);
    const got: unknown = JSON.parse(res.body.toString());
    if (!Array.isArray(got) || got.length !== count) {
      throw new Error(
        `GET ${path}: expected ${count} entries, got ${Array.isArray(got) ? got.length : "no array"}`,
      );
    }
    log(`GET ${path}: ${count} entries, ${res.body.length} bytes`);
  }
}

/** Closed-loop reads of `pathOf(name)`, workers walking the service names on different strides. */
function readLoad(agent: Agent, target: HttpTarget, pathOf: (name: string) => string): Promise<LoadResult> {
  return runLoad({
    concurrency: CLIENTS,
    durationMs,
    warmupMs,
    op: async (worker, seq) => {
      await httpOk(agent, target, "GET", pathOf(serviceName((worker * 37 + seq * 13) % NAMES)));
    },
  });
}

/** The same reads from wrk, names drawn at random; `headers` on every request. */
async function wrkReadLoad(
  target: HttpTarget,
  pathOf: (name: string) => string,
  headers: Record<string, string>,
): Promise<LoadResult & { generatorCores: number }> {
  const requests = Array.from({ length: NAMES }, (_, j) => ({
    method: "GET",
    path: pathOf(serviceName(j)),
    headers,
  }));
  if (warmupMs > 0)
    await runWrk({ target, requests, connections: CLIENTS, threads: 1, seconds: Math.ceil(warmupMs / 1000) });
  return runWrk({ target, requests, connections: CLIENTS, threads: 1, seconds: durationMs / 1000 });
}

interface Row {
  label: string;
  /** CPU the load generator used, in cores (wrk only). */
  generatorCores?: number;
  ops: number;
  opsPerSec: number;
  p50: number;
  p99: number;
  errors: number;
}

async function bench(leader: AgentProcess): Promise<Row[]> {
  const total = NODES * PER_NODE;
  const agent = keepAliveAgent(CLIENTS);
  try {
    log(`registering ${NODES} nodes x ${PER_NODE} services (${total} registrations, ${CLIENTS} clients)`);
    const reg = await registerAll(agent, leader.http, total);
    log(`registered in ${reg.seconds.toFixed(1)} s: ${formatRate(reg.opsPerSec)}/s`);
    await checkAnswers(agent, leader.http, total);
    const rows: Row[] = [{ label: "PUT /v1/catalog/register (node + service + check)", ...reg, errors: 0 }];
    const reads: Array<[string, (name: string) => string]> = [
      ["GET /v1/health/service/:name?passing", healthPath],
      [`GET /v1/catalog/service/:name?filter=${FILTER}`, filterPath],
    ];
    for (const [label, pathOf] of reads) {
      const variants: Array<[string, Record<string, string>]> =
        values.generator === "wrk"
          ? [
              ["", {}],
              [" (Accept-Encoding: gzip)", { "Accept-Encoding": "gzip" }],
            ]
          : [["", {}]];
      for (const [suffix, headers] of variants) {
        const r =
          values.generator === "wrk"
            ? await wrkReadLoad(leader.http, pathOf, headers)
            : await readLoad(agent, leader.http, pathOf);
        log(
          `${label}${suffix}: ${formatRate(r.opsPerSec)} ops/s p50 ${formatMs(r.p50)} p99 ${formatMs(r.p99)} ms` +
            (r.errors ? ` (${r.errors} errors, first: ${r.firstError})` : ""),
        );
        rows.push({ label: `${label}${suffix}`, ...r });
      }
    }
    return rows;
  } finally {
    agent.destroy();
  }
}

async function main(): Promise<void> {
  if (values.generator === "wrk") ensureWrk(log);
  const loadBefore = loadAverage();
  const root = await mkdtemp(join(tmpdir(), "cairn-catalog-bench-"));
  let rows: Row[];
  const profiles = values["cpu-prof"];
  const nodeArgs = profiles ? ["--cpu-prof", `--cpu-prof-dir=${profiles}`] : [];
  try {
    let leader: AgentProcess;
    if (values.dev) {
      log("starting one -dev agent");
      leader = await startCairnDev("dev", { nodeArgs });
    } else {
      log(`starting ${CLUSTER_SIZE} servers`);
      leader = (await startCairnCluster(CLUSTER_SIZE, root, { nodeArgs })).leader;
      log(`leader: ${leader.name} (pid ${leader.process.pid})`);
    }
    rows = await bench(leader);
  } finally {
    await stopAll();
    if (values.keep) log(`data and logs kept in ${root}`);
    else await rm(root, { recursive: true, force: true });
  }

  const setup = values.dev ? "one -dev agent" : `${CLUSTER_SIZE} servers on loopback, fsync on`;
  console.log(`### Catalog: ${NODES.toLocaleString("en-US")} nodes x ${PER_NODE} services, ${setup}\n`);
  console.log(
    `${NAMES} service names (${(NODES * PER_NODE) / NAMES} instances each, half with env=prod, about 10% with a critical check); ` +
      `${CLIENTS} closed-loop keep-alive clients to the leader (reads from ${values.generator === "wrk" ? "wrk, names at random" : "the Node client, names in turn"}); registration: every one once, reads: ${values.seconds} s ` +
      `after ${values.warmup} s warm-up. Machine load average (1 min): ${loadBefore} before, ${loadAverage()} after.\n`,
  );
  console.log(
    markdownTable(
      ["operation", "clients", "ops", "ops/s", "p50 ms", "p99 ms", "errors", "generator CPU (cores)"],
      rows.map((r) => [
        r.label,
        String(CLIENTS),
        r.ops.toLocaleString("en-US"),
        formatRate(r.opsPerSec),
        formatMs(r.p50),
        formatMs(r.p99),
        String(r.errors),
        r.generatorCores === undefined ? "-" : r.generatorCores.toFixed(2),
      ]),
    ),
  );
}

useBuiltAgents();
main().catch(async (err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  await stopAll(1000);
  process.exit(1);
});
