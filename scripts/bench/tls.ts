// The cost of TLS (not a test): two three-server Cairn clusters on loopback with fsync on, one with mutual
// TLS on the server RPC port (verify_incoming, verify_outgoing, verify_server_hostname), one plaintext. The
// TLS cluster is driven twice, through HTTPS with a client certificate and through its plain HTTP port (TLS
// between the servers only). They take turns cell by cell in the same run, driven by the same closed-loop
// keep-alive load generator: KV PUT and default GET against the leader. Goal: TLS costs at most 15% of the
// throughput.
//
//   node --import tsx scripts/bench/tls.ts [--seconds 10] [--clients 64] [--keys 2000] [--rounds 2] [--keep]

import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import type { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startCairnCluster } from "../lib/cluster.js";
import { freePorts } from "../lib/ports.js";
import { stopAll } from "../lib/processes.js";
import { tlsHcl, writeTestCerts } from "../lib/tls-certs.js";
import { useBuiltAgents } from "./lib/built.js";
import { type HttpTarget, keepAliveAgent, keepAliveTlsAgent } from "./lib/http-client.js";
import { kvCell, kvKeyName } from "./lib/kv-cell.js";
import { cairnKv } from "./lib/kv-drivers.js";
import type { LoadResult } from "./lib/load.js";
import { formatMs, formatRate, markdownTable } from "./lib/table.js";
import { ensureWrk } from "./lib/wrk.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    clients: { type: "string", default: "64" },
    keys: { type: "string", default: "2000" },
    rounds: { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
    generator: { type: "string", default: "wrk" },
  },
});
if (values.generator !== "wrk" && values.generator !== "node")
  throw new Error(`--generator must be wrk or node, not ${JSON.stringify(values.generator)}`);
const useWrk = values.generator === "wrk";
const durationMs = Number(values.seconds) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const clients = Number(values.clients);
const keyCount = Number(values.keys);
const rounds = Number(values.rounds);
const value = Buffer.alloc(100, "v");
const GOAL = 0.15;

const log = (line: string) => console.error(`[tls-bench] ${line}`);

type Operation = "put" | "get-default";
const OPERATIONS: Operation[] = ["put", "get-default"];

interface Side {
  name: string;
  leader: HttpTarget;
  /** One keep-alive pool for the whole run: handshakes happen while prefilling, not inside a cell. */
  agent: Agent;
  results: Map<Operation, LoadResult[]>;
}

function cell(side: Side, op: Operation): Promise<LoadResult> {
  return kvCell({
    generator: useWrk ? "wrk" : "node",
    target: side.leader,
    agent: side.agent,
    op: op === "put" ? "put" : "get",
    clients,
    keys: keyCount,
    value,
    durationMs,
    // wrk's connections are its own: a first run warms them, TLS handshakes included.
    warmupMs: useWrk ? Math.max(warmupMs, 1000) : warmupMs,
    wrkThreads: 2,
  });
}

/** Writes every key with as many workers as the cells use, so that all their connections are open. */
async function prefill(side: Side): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < keyCount) await cairnKv.put(side.agent, side.leader, kvKeyName(next++), value);
  };
  await Promise.all(Array.from({ length: clients }, worker));
}

/** The best of the rounds: background load on a shared machine only ever slows a cell down. */
const best = (results: LoadResult[]) => results.reduce((a, b) => (b.opsPerSec > a.opsPerSec ? b : a));

function render(plain: Side, rpcOnly: Side, tls: Side): string {
  const rows = OPERATIONS.map((op) => {
    const p = best(plain.results.get(op)!);
    const r = best(rpcOnly.results.get(op)!);
    const t = best(tls.results.get(op)!);
    const cost = (x: LoadResult) => 1 - x.opsPerSec / p.opsPerSec;
    const cell = (x: LoadResult) => `${formatRate(x.opsPerSec)} (p99 ${formatMs(x.p99)} ms)`;
    return [
      `${op === "put" ? "PUT" : "GET default"} x${clients}`,
      cell(p),
      `${cell(r)}, cost ${(cost(r) * 100).toFixed(1)}%`,
      `${cell(t)}, cost ${(cost(t) * 100).toFixed(1)}%`,
      cost(t) <= GOAL ? "met" : "not met",
    ];
  });
  return markdownTable(
    ["operation", "plaintext ops/s", "TLS on RPC, HTTP", "TLS on RPC + HTTPS", `goal ≤ ${GOAL * 100}%`],
    rows,
  );
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "cairn-tls-bench-"));
  try {
    if (useWrk) ensureWrk(log);
    const certs = await writeTestCerts(root);
    const httpsPorts = await freePorts(3);
    log("starting the plaintext cluster");
    const plainCluster = await startCairnCluster(3, join(root, "plain"));
    log("starting the TLS cluster");
    const tlsCluster = await startCairnCluster(3, join(root, "tls"), {
      // wrk cannot present a client certificate; verifying one costs only at the handshake, before a cell.
      flags: ["-hcl", tlsHcl(certs.ca, certs.server, useWrk ? "https { verify_incoming = false }" : "")],
      flagsFor: (i) => ["-https-port", String(httpsPorts[i])],
    });
    const tlsLeaderIndex = tlsCluster.servers.indexOf(tlsCluster.leader);
    const clientTls = {
      ca: readFileSync(certs.ca),
      cert: readFileSync(certs.client.cert),
      key: readFileSync(certs.client.key),
    };
    const plain: Side = {
      name: "plaintext",
      leader: plainCluster.leader.http,
      agent: keepAliveAgent(clients),
      results: new Map(),
    };
    // The TLS cluster's plain HTTP port: what TLS between the servers costs, apart from the clients' HTTPS.
    const rpcOnly: Side = {
      name: "TLS RPC + HTTP",
      leader: tlsCluster.leader.http,
      agent: keepAliveAgent(clients),
      results: new Map(),
    };
    const tls: Side = {
      name: "TLS",
      leader: { host: "127.0.0.1", port: httpsPorts[tlsLeaderIndex]!, tls: true },
      agent: keepAliveTlsAgent(clients, clientTls),
      results: new Map(),
    };
    const sides = [plain, rpcOnly, tls];
    for (const side of sides) {
      log(`${side.name}: prefilling ${keyCount} keys`);
      await prefill(side);
    }
    for (let round = 1; round <= rounds; round++) {
      for (const op of OPERATIONS) {
        for (const side of round % 2 ? sides : [...sides].reverse()) {
          const r = await cell(side, op);
          log(
            `round ${round} ${side.name} ${op} x${clients}: ${formatRate(r.opsPerSec)} ops/s, p99 ${formatMs(r.p99)} ms, ${r.errors} errors${r.firstError ? ` (${r.firstError})` : ""}`,
          );
          side.results.set(op, [...(side.results.get(op) ?? []), r]);
        }
      }
    }
    console.log(
      `TLS cost: two 3-server clusters, fsync on, the same run, load from ${values.generator}; best of ${rounds} rounds of ${values.seconds} s per cell.\n`,
    );
    console.log(render(plain, rpcOnly, tls));
    for (const side of sides) side.agent.destroy();
    await Promise.all([plainCluster.stop(), tlsCluster.stop()]);
  } finally {
    await stopAll();
    if (!values.keep) await rm(root, { recursive: true, force: true });
  }
}

useBuiltAgents();
main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
