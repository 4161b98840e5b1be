// Federation benchmark (not a test): what a `?dc=` hop costs. Two datacenters of three servers each on
// loopback, WAN-joined (scripts/lib/federation.ts). The same read of one key is timed three ways, the
// paths taking turns cell by cell (order rotating each round):
//   local     GET /v1/kv/k on a dc1 server, for dc1's key           (the request without a hop)
//   ?dc=dc2   GET /v1/kv/k?dc=dc2 on the same dc1 server             (forwarded over the WAN tunnel)
//   remote    GET /v1/kv/k directly on a dc2 server (each in turn)  (what the remote side costs alone)
// for stale and default-consistency reads, at 1 and 16 closed-loop clients. Goal: the hop adds at most one
// round trip plus 1 ms of p50 over the local request on loopback.
//
//   node --import tsx scripts/bench/federation.ts [--seconds 3] [--warmup 0.5] [--clients 1,16] [--rounds 3]
//        [--keep]

import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { AgentProcess } from "../lib/agent.js";
import { startFederation } from "../lib/federation.js";
import { stopAll } from "../lib/processes.js";
import { type HttpTarget, httpOk, keepAliveAgent } from "./lib/http-client.js";
import { type LoadResult, runLoad } from "./lib/load.js";
import { median } from "./lib/median.js";
import { formatMs, formatRate, markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "3" },
    warmup: { type: "string", default: "0.5" },
    clients: { type: "string", default: "1,16" },
    rounds: { type: "string", default: "3" },
    keep: { type: "boolean", default: false },
  },
});
const durationMs = Number(values.seconds) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const clientCounts = values.clients.split(",").map(Number);
const rounds = Number(values.rounds);
const KEY = "bench/federation";

const log = (line: string) => console.error(`[federation-bench] ${line}`);
const target = (a: AgentProcess): HttpTarget => a.http;

type Mode = "stale" | "default";
type PathName = "local" | "hop" | "remote";
const PATHS: PathName[] = ["local", "hop", "remote"];
const PATH_LABELS: Record<PathName, string> = { local: "local", hop: "?dc=dc2", remote: "remote direct" };

async function cell(to: HttpTarget, path: string, clients: number): Promise<LoadResult> {
  const agent = keepAliveAgent(clients);
  try {
    return await runLoad({
      concurrency: clients,
      durationMs,
      warmupMs,
      op: async () => {
        await httpOk(agent, to, "GET", path);
      },
    });
  } finally {
    agent.destroy();
  }
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "cairn-bench-federation-"));
  let report = "";
  try {
    log("starting two datacenters of three servers");
    const fed = await startFederation(root, { datacenters: ["dc1", "dc2"], clients: false });
    const from = fed.dc("dc1").servers[0]!;
    for (const d of fed.datacenters) {
      await httpOk(keepAliveAgent(1), target(d.servers[0]!), "PUT", `/v1/kv/${KEY}`, Buffer.alloc(100, "v"));
    }
    // Warms the WAN connection. The dc2 server the hop lands on is not known from outside: the remote
    // baseline takes each dc2 server in turn.
    await httpOk(keepAliveAgent(1), target(from), "GET", `/v1/kv/${KEY}?dc=dc2`);
    const results = new Map<string, LoadResult[]>();
    for (let round = 0; round < rounds; round++) {
      for (const mode of ["stale", "default"] as Mode[]) {
        const q = mode === "stale" ? "?stale" : "";
        for (const clients of clientCounts) {
          const order = PATHS.map((_, i) => PATHS[(i + round) % PATHS.length]!);
          for (const p of order) {
            const remote = fed.dc("dc2").servers[round % 3]!;
            const [to, path] =
              p === "local"
                ? [target(from), `/v1/kv/${KEY}${q}`]
                : p === "hop"
                  ? [target(from), `/v1/kv/${KEY}${q ? `${q}&dc=dc2` : "?dc=dc2"}`]
                  : [target(remote), `/v1/kv/${KEY}${q}`];
            const result = await cell(to, path, clients);
            const key = `${mode}/${clients}/${p}`;
            results.set(key, [...(results.get(key) ?? []), result]);
            log(
              `round ${round + 1} ${mode} c=${clients} ${PATH_LABELS[p]}: p50 ${formatMs(result.p50)} ms, ` +
                `p99 ${formatMs(result.p99)} ms, ${formatRate(result.opsPerSec)}/s, load ${loadavg()[0]!.toFixed(1)}`,
            );
          }
        }
      }
    }
    const med = (key: string, f: (r: LoadResult) => number) => median((results.get(key) ?? []).map(f));
    const rows: string[][] = [];
    for (const mode of ["stale", "default"] as Mode[]) {
      for (const clients of clientCounts) {
        const k = (p: PathName) => `${mode}/${clients}/${p}`;
        const added50 = med(k("hop"), (r) => r.p50) - med(k("local"), (r) => r.p50);
        const added99 = med(k("hop"), (r) => r.p99) - med(k("local"), (r) => r.p99);
        // One round trip on loopback is what the remote server's own answer costs at least: bounded here by
        // the remote request's p50, the goal is added p50 <= that + 1 ms.
        const budget = med(k("remote"), (r) => r.p50) + 1;
        rows.push([
          mode,
          String(clients),
          formatMs(med(k("local"), (r) => r.p50)),
          formatMs(med(k("hop"), (r) => r.p50)),
          formatMs(med(k("remote"), (r) => r.p50)),
          formatMs(added50),
          formatMs(med(k("local"), (r) => r.p99)),
          formatMs(med(k("hop"), (r) => r.p99)),
          formatMs(added99),
          formatRate(med(k("local"), (r) => r.opsPerSec)),
          formatRate(med(k("hop"), (r) => r.opsPerSec)),
          added50 <= budget ? "yes" : "no",
        ]);
      }
    }
    report = [
      `KV GET of one 100-byte key, two datacenters of three servers on loopback, ${rounds} rounds of ` +
        `${values.seconds} s cells with the paths taking turns (medians over rounds). "added" is the ?dc=dc2 ` +
        `hop's latency over the local request; goal: added p50 <= one round trip (the remote request's own ` +
        `p50, an upper bound for it) + 1 ms.\n`,
      markdownTable(
        [
          "read",
          "clients",
          "local p50 ms",
          "?dc= p50 ms",
          "remote p50 ms",
          "added p50 ms",
          "local p99 ms",
          "?dc= p99 ms",
          "added p99 ms",
          "local ops/s",
          "?dc= ops/s",
          "goal met",
        ],
        rows,
      ),
    ].join("\n");
  } finally {
    await stopAll();
    if (values.keep) log(`data and logs kept in ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
  console.log(report);
}

main().catch(async (err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  await stopAll(1000);
  process.exit(1);
});
