// One chaos run: start the cluster, run the workloads while nemeses strike, heal everything, take the final
// reads, check every history, and write history, events and verdict under the run directory.

import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Prng } from "@cairn/testkit";
import { REPO_ROOT } from "../../scripts/lib/agent.js";
import { httpCall } from "../../scripts/lib/http.js";
import { writeTestCerts } from "../../scripts/lib/tls-certs.js";
import { sleep } from "../../scripts/lib/wait.js";
import { type Distribution, distribution } from "./check/percentiles.js";
import { Cluster } from "./cluster/cluster.js";
import { loopbackNetwork } from "./cluster/loopback.js";
import { namespaceNetwork, namespacesAvailable } from "./cluster/netns.js";
import type { Network } from "./cluster/network.js";
import { resolveRevision, snapshotTree } from "./cluster/tree.js";
import { type FaultWindow, type LeaderChange, leaderChanges } from "./leader-changes.js";
import { NEMESES } from "./nemesis/index.js";
import type { Nemesis, NemesisContext } from "./nemesis/nemesis.js";
import { measureRecovery, type RecoveryWindow } from "./recovery.js";
import { bankWorkload } from "./workload/bank.js";
import { lockWorkload } from "./workload/lock.js";
import { registerWorkload } from "./workload/register.js";
import { setWorkload } from "./workload/set.js";
import type { Workload, WorkloadContext, WorkloadVerdict } from "./workload/workload.js";

export const WORKLOADS: ReadonlyMap<string, (ctx: WorkloadContext) => Workload> = new Map([
  ["register", (ctx: WorkloadContext) => registerWorkload(ctx)],
  ["set", (ctx: WorkloadContext) => setWorkload(ctx)],
  ["lock", (ctx: WorkloadContext) => lockWorkload(ctx)],
  ["bank", (ctx: WorkloadContext) => bankWorkload(ctx)],
]);

export interface ChaosOptions {
  readonly servers: number;
  /** Client agents next to the servers, each joining through one (default 0). */
  readonly clients?: number;
  readonly timeSeconds: number;
  readonly nemeses: readonly string[];
  readonly workloads: readonly string[];
  readonly seed: number;
  /** "auto": namespaces when root on Linux, else loopback. */
  readonly network: "auto" | "loopback" | "netns";
  readonly runsRoot: string;
  /** A git revision to run the servers from (extracted to a temporary tree); default: the working tree. */
  readonly revision?: string;
  /** Mutual TLS between the agents (certificates made for the run). */
  readonly tls?: boolean;
  /** Quiet time between faults, in election timeouts (default 3 to 6). */
  readonly quiet?: readonly [number, number];
  /** Consul's raft_multiplier for the servers (default: the agent's default). */
  readonly raftMultiplier?: number;
}

export interface ChaosReport {
  readonly runDir: string;
  readonly network: Network["kind"];
  readonly valid: boolean | "unknown";
  readonly verdicts: readonly WorkloadVerdict[];
  readonly windows: readonly RecoveryWindow[];
  readonly unavailability: Distribution | undefined;
  /** The same, by the fault that caused the window (kill-leader, pause-leader, heal-...). */
  readonly unavailabilityByCause: Readonly<Record<string, Distribution>>;
  /** Every leader change the servers logged, and whether a fault caused it (unprovoked: cause undefined). */
  readonly leaderChanges: readonly LeaderChange[];
  /** Worst event-loop delay each server measured (at the end of the run, since its last start). */
  readonly eventLoopDelay: readonly { server: string; p99Ms: number; maxMs: number }[];
  /** Workload requests per agent (servers, then client agents): answered, and failed or 5xx. */
  readonly traffic: readonly { agent: string; answered: number; failed: number }[];
  readonly notices: readonly string[];
  /** Agents that exited without being stopped by the harness (crashes, failed starts). */
  readonly crashes: readonly { server: string; exit: number | string; output: string }[];
  /** Faults injected while the cluster was not whole (a server still down or not caught up). */
  readonly unhealthyBeforeFault: number;
  readonly events: readonly { t: number; event: string; detail?: Record<string, unknown> }[];
}

/** The pacing unit: quiet time between faults and the settling time at the end are multiples of it. */
const ELECTION_TIMEOUT_MS = 1000;
/** The agent's default raft_multiplier; a server's longest election timeout is 1.5 s per unit of it. */
const DEFAULT_RAFT_MULTIPLIER = 3;
/** After a fault ends and the cluster is whole again, leader changes this much later are still its doing. */
const FAULT_SETTLE_MS = 3000;

function runName(seed: number): string {
  return `${new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "")}-${seed}`;
}

export async function runChaos(options: ChaosOptions, print: (line: string) => void): Promise<ChaosReport> {
  for (const n of options.nemeses) if (!NEMESES.has(n)) throw new Error(`unknown nemesis ${n} (or none)`);
  for (const w of options.workloads) if (!WORKLOADS.has(w)) throw new Error(`unknown workload ${w}`);
  const runDir = join(options.runsRoot, runName(options.seed));
  await mkdir(runDir, { recursive: true });
  const dataRoot = mkdtempSync(join(tmpdir(), "cairn-chaos-"));
  const rng = new Prng(options.seed);
  const treeRoot =
    options.revision === undefined
      ? undefined
      : snapshotTree(REPO_ROOT, options.revision, join(dataRoot, "tree"));
  const start = performance.now();
  const startedAtWall = Date.now();
  const windows: FaultWindow[] = [];
  const now = () => performance.now() - start;
  const notices: string[] = [];
  const events: ChaosReport["events"][number][] = [];
  const log = (event: string, detail?: Record<string, unknown>) => {
    events.push(detail ? { t: Math.round(now()), event, detail } : { t: Math.round(now()), event });
    print(`[${(now() / 1000).toFixed(1)}s] ${event}${detail ? ` ${JSON.stringify(detail)}` : ""}`);
  };

  const useNamespaces = options.network === "netns" || (options.network === "auto" && namespacesAvailable());
  const clients = options.clients ?? 0;
  const agents = options.servers + clients;
  const network = useNamespaces ? namespaceNetwork(agents) : await loopbackNetwork(agents);
  const crashes: ChaosReport["crashes"][number][] = [];
  const tlsDir = join(dataRoot, "tls");
  const certs = options.tls ? await mkdir(tlsDir).then(() => writeTestCerts(tlsDir)) : undefined;
  const cluster = new Cluster({
    network,
    clients,
    dataRoot,
    logRoot: join(runDir, "logs"),
    ...(treeRoot ? { treeRoot } : {}),
    ...(certs ? { tls: certs } : {}),
    ...(options.raftMultiplier === undefined ? {} : { raftMultiplier: options.raftMultiplier }),
    onCrash: (node, exit, output) => {
      crashes.push({ server: node.name, exit, output: output.slice(-1500) });
      log("crash", { server: node.name, exit, output: output.slice(-300) });
    },
  });
  let unhealthyBeforeFault = 0;
  try {
    const nemeses: Nemesis[] = [];
    for (const name of options.nemeses) {
      const nemesis = NEMESES.get(name)!;
      const reason = nemesis.unavailable(cluster);
      if (reason) {
        notices.push(`${name}: ${reason}`);
        print(`notice: nemesis ${name}: ${reason}`);
      } else nemeses.push(nemesis);
    }
    log("start", {
      servers: options.servers,
      clients,
      network: network.kind,
      seed: options.seed,
      tree: options.revision === undefined ? "working tree" : resolveRevision(REPO_ROOT, options.revision),
    });
    await cluster.start();
    const leader = await cluster.awaitLeader(120_000);
    log("leader", { server: cluster.nodes[leader]!.name });
    await cluster.awaitHealthy(60_000);
    windows.push({ cause: "start", from: 0, to: now() + FAULT_SETTLE_MS });

    const prefix = `chaos/${options.seed}`;
    let endpoints = 0;
    const traffic = [...cluster.nodes, ...cluster.clients].map((n) => ({
      agent: n.name,
      answered: 0,
      failed: 0,
    }));
    const wctx: WorkloadContext = {
      cluster,
      rng,
      prefix,
      requestTimeoutMs: 3000,
      firstEndpoint: () => endpoints++ % cluster.endpoints.length,
      countRequest: (endpoint, answered) => {
        const t = traffic[endpoint]!;
        if (answered) t.answered++;
        else t.failed++;
      },
      now,
    };
    const workloads = options.workloads.map((w) => WORKLOADS.get(w)!(wctx));
    let running = true;
    const runningWorkloads = Promise.all(workloads.map((w) => w.run(() => running)));
    // A workload that fails (a malformed answer) is reported when awaited below, not as an unhandled rejection.
    runningWorkloads.catch(() => {});

    const measurements: Promise<RecoveryWindow>[] = [];
    const nctx: NemesisContext = {
      cluster,
      rng,
      // Pauses and partitions must outlast the servers' longest election timeout to depose a leader.
      electionTimeoutMs: 1500 * (options.raftMultiplier ?? DEFAULT_RAFT_MULTIPLIER),
      log,
      measureRecovery: (cause) => {
        measurements.push(
          measureRecovery(cluster, `${prefix}/probe`, cause).then((w) => {
            log("recovered", { cause, ms: w.ms ?? "not within 60 s" });
            return w;
          }),
        );
      },
    };
    const [quietMin, quietMax] = options.quiet ?? [3, 6];
    const deadline = options.timeSeconds * 1000;
    while (now() < deadline && nemeses.length > 0) {
      await sleep(rng.int(quietMin, quietMax) * ELECTION_TIMEOUT_MS);
      if (!(await cluster.awaitHealthy(30_000))) {
        unhealthyBeforeFault++;
        log("unhealthy", {
          note: "the cluster was not whole (an agent down, no agreed leader, or a server not a voter) after 30 s; striking anyway",
        });
      }
      if (now() >= deadline) break;
      const nemesis = rng.pick(nemeses);
      const from = now();
      await nemesis.run(nctx);
      await cluster.awaitHealthy(30_000);
      windows.push({ cause: nemesis.name, from, to: now() + FAULT_SETTLE_MS });
    }
    if (nemeses.length === 0) await sleep(Math.max(0, deadline - now()));

    log("heal-all");
    windows.push({ cause: "heal-all", from: now(), to: Number.POSITIVE_INFINITY });
    await network.heal();
    cluster.reviveAll();
    await cluster.awaitLeader(120_000);
    // A few seconds of fault-free operation, then the clients stop and the final reads run.
    await sleep(3 * ELECTION_TIMEOUT_MS);
    running = false;
    await runningWorkloads;
    for (const w of workloads) await w.finish();
    const recoveries = await Promise.all(measurements);
    const eventLoopDelay = await readEventLoopDelay(cluster);
    log("checking");

    const verdicts = workloads.map((w) => w.check());
    const valid: boolean | "unknown" = verdicts.some((v) => v.valid === false)
      ? false
      : verdicts.some((v) => v.valid === "unknown")
        ? "unknown"
        : true;
    const recovered = recoveries.flatMap((w) => (w.ms === undefined ? [] : [w.ms]));
    const byCause: Record<string, Distribution> = {};
    for (const cause of new Set(recoveries.map((w) => w.cause))) {
      const d = distribution(
        recoveries.flatMap((w) => (w.cause === cause && w.ms !== undefined ? [w.ms] : [])),
      );
      if (d) byCause[cause] = d;
    }
    const report: ChaosReport = {
      runDir,
      network: network.kind,
      valid,
      verdicts,
      windows: recoveries,
      unavailability: distribution(recovered),
      unavailabilityByCause: byCause,
      leaderChanges: leaderChanges(
        join(runDir, "logs"),
        cluster.nodes.map((n) => n.name),
        startedAtWall,
        windows,
      ),
      eventLoopDelay,
      traffic,
      notices,
      crashes,
      unhealthyBeforeFault,
      events,
    };
    for (const w of workloads) {
      await writeFile(join(runDir, `${w.name}.history.json`), JSON.stringify(w.history(), null, 0));
    }
    await writeFile(join(runDir, "events.json"), JSON.stringify(events, null, 1));
    await writeFile(join(runDir, "verdict.json"), JSON.stringify({ options, ...report }, null, 1));
    await writeFile(join(runDir, "summary.txt"), summarize(report));
    return report;
  } finally {
    await cluster.stop();
    network.teardown();
    rmSync(dataRoot, { recursive: true, force: true });
  }
}

export function summarize(report: ChaosReport): string {
  const lines = [
    `run ${report.runDir} (${report.network})`,
    ...report.notices.map((n) => `notice: ${n}`),
    ...report.crashes.map(
      (c) => `CRASH: ${c.server} exited (${c.exit}): ${c.output.trim().split("\n").at(-1) ?? ""}`,
    ),
    ...(report.unhealthyBeforeFault > 0
      ? [`${report.unhealthyBeforeFault} faults struck a cluster that was not whole (see "unhealthy" events)`]
      : []),
    ...report.verdicts.map(
      (v) =>
        `${v.workload}: ${v.valid === true ? "ok" : v.valid === false ? "ANOMALY" : "unknown"} - ${v.summary}`,
    ),
  ];
  lines.push(
    `requests by agent: ${report.traffic.map((t) => `${t.agent} ${t.answered}${t.failed ? ` (+${t.failed} failed)` : ""}`).join(", ")}`,
  );
  const d = report.unavailability;
  const unrecovered = report.windows.filter((w) => w.ms === undefined).length;
  lines.push(
    d
      ? `unavailability after ${d.count} faults: p50 ${d.p50} ms, p99 ${d.p99} ms, max ${d.max} ms${unrecovered ? `; ${unrecovered} not recovered within 60 s` : ""}`
      : `unavailability: no measured faults${unrecovered ? `; ${unrecovered} not recovered within 60 s` : ""}`,
  );
  for (const [cause, c] of Object.entries(report.unavailabilityByCause))
    lines.push(`  ${cause}: ${c.count} windows, p50 ${c.p50} ms, p99 ${c.p99} ms, max ${c.max} ms`);
  const unprovoked = report.leaderChanges.filter((c) => c.cause === undefined);
  lines.push(
    `leader changes: ${report.leaderChanges.length}, unprovoked (no fault caused them): ${unprovoked.length}${unprovoked.length ? ` at ${unprovoked.map((c) => `${(c.t / 1000).toFixed(1)}s (${c.server})`).join(", ")}` : ""}`,
  );
  if (report.eventLoopDelay.length > 0)
    lines.push(
      `event-loop delay by server: ${report.eventLoopDelay.map((d) => `${d.server} p99 ${d.p99Ms} ms max ${d.maxMs} ms`).join(", ")}`,
    );
  lines.push(
    `verdict: ${report.valid === true ? "no anomaly" : report.valid === false ? "ANOMALY FOUND" : "undecided"}`,
  );
  return `${lines.join("\n")}\n`;
}

/** Each serving server's event-loop delay gauges (p99 and max since it started). */
async function readEventLoopDelay(cluster: Cluster): Promise<ChaosReport["eventLoopDelay"][number][]> {
  const out: ChaosReport["eventLoopDelay"][number][] = [];
  for (const n of cluster.nodes) {
    if (!cluster.isServing(n.index)) continue;
    const r = await httpCall(`${n.url}/v1/agent/metrics`, "GET", undefined, 3000);
    if (r.kind !== "reply" || r.status !== 200) continue;
    const gauges = (JSON.parse(r.body) as { Gauges?: { Name: string; Value: number }[] }).Gauges ?? [];
    const gauge = (name: string) => Math.round(gauges.find((g) => g.Name === name)?.Value ?? Number.NaN);
    out.push({
      server: n.name,
      p99Ms: gauge("cairn.runtime.event_loop_delay_p99_ms"),
      maxMs: gauge("cairn.runtime.event_loop_delay_max_ms"),
    });
  }
  return out;
}
