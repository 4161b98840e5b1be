// A WAN-partition chaos run: a federation of datacenters (wan-cluster.ts), a workload in every datacenter
// that writes its own keys locally and reads the other datacenters' latest acknowledged keys through
// `?dc=` (alternating between its servers and its client agent), and the WAN-partition nemesis cutting one
// datacenter at a time from the others, then healing. Judged by wan-check.ts; the run directory keeps the
// history, the cuts, the verdict and the agents' logs.
//
//   node --import tsx test-cluster/src/federation/wan-chaos.ts [--datacenters 2] [--servers 3] [--time 90]
//        [--cuts 2] [--seed S]

import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Prng } from "@cairn/testkit";
import type { AgentProcess } from "../../../scripts/lib/agent.js";
import { httpCall } from "../../../scripts/lib/http.js";
import { sleep, waitFor } from "../../../scripts/lib/wait.js";
import { namespaceNetwork, namespacesAvailable } from "../cluster/netns.js";
import { cutDatacenter } from "../nemesis/wan-partition.js";
import { checkWan, type WanCut, type WanOp, type WanVerdict } from "./wan-check.js";
import { startWanCluster, wanClusterSize } from "./wan-cluster.js";

export interface WanChaosOptions {
  readonly datacenters: number;
  readonly servers: number;
  /** Seconds of workload. */
  readonly timeSeconds: number;
  /** WAN cuts, spread over the run. */
  readonly cuts: number;
  readonly seed: number;
  readonly runsRoot: string;
}

export interface WanChaosReport extends WanVerdict {
  readonly runDir: string;
  readonly cuts: readonly WanCut[];
  /** Acknowledged local writes not found through ?dc= after the last heal. */
  readonly lost: readonly string[];
}

/** The forwarding deadline of a request that does not block (10 s) plus slack for a loaded machine. */
const CLEAN_FAILURE_MS = 20_000;
/** Requests across a healed cut may fail this long: gossip must see the other side alive again. */
const RECOVERY_MS = 45_000;
/** Longer than any clean failure may take: no answer by then is a hang. */
const CLIENT_TIMEOUT_MS = 40_000;

export async function runWanChaos(
  o: WanChaosOptions,
  print: (line: string) => void,
): Promise<WanChaosReport> {
  if (!namespacesAvailable()) throw new Error("a WAN partition needs network namespaces (root on Linux)");
  const runDir = join(
    o.runsRoot,
    `${new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "")}-wan-${o.seed}`,
  );
  await mkdir(runDir, { recursive: true });
  const dataRoot = mkdtempSync(join(tmpdir(), "cairn-wan-chaos-"));
  const rng = new Prng(o.seed);
  const network = namespaceNetwork(wanClusterSize(o.datacenters, o.servers));
  const began = performance.now();
  const now = () => performance.now() - began;
  const log = (line: string) => print(`[${(now() / 1000).toFixed(1)}s] ${line}`);
  const ops: WanOp[] = [];
  const cuts: WanCut[] = [];
  let cluster: Awaited<ReturnType<typeof startWanCluster>> | undefined;
  try {
    log(`starting ${o.datacenters} datacenters of ${o.servers} servers and a client agent (${network.kind})`);
    cluster = await startWanCluster({
      network,
      datacenters: o.datacenters,
      servers: o.servers,
      dataRoot,
      logRoot: join(runDir, "logs"),
    });
    const fed = cluster;
    const names = fed.datacenters.map((d) => d.name);
    /** Per datacenter, the highest sequence number whose local write was acknowledged. */
    const acked = names.map(() => 0);
    const key = (dc: string, seq: number) => `wan/${dc}/${String(seq).padStart(6, "0")}`;
    // Every datacenter has one acknowledged key before the clock starts.
    for (const [d, dc] of names.entries()) {
      const res = await httpCall(`${fed.agentsOf(d)[0]!.url}/v1/kv/${key(dc, 0)}`, "PUT", "0", 15_000);
      if (res.kind !== "reply" || res.status !== 200) throw new Error(`first write in ${dc} failed`);
    }
    const record = async (kind: WanOp["kind"], from: number, to: number, agent: AgentProcess, k: string) => {
      const start = now();
      const url =
        kind === "local-write" ? `${agent.url}/v1/kv/${k}` : `${agent.url}/v1/kv/${k}?dc=${names[to]}&raw`;
      const res = await httpCall(
        url,
        kind === "local-write" ? "PUT" : "GET",
        kind === "local-write" ? k : undefined,
        CLIENT_TIMEOUT_MS,
      );
      const op: WanOp = {
        kind,
        from: names[from]!,
        to: names[to]!,
        agent: agent.name,
        key: k,
        start,
        end: now(),
        status: res.kind === "reply" ? res.status : 0,
        body: res.kind === "reply" ? res.body : res.reason,
      };
      ops.push(op);
      return op;
    };
    const endAt = now() + o.timeSeconds * 1000;
    const worker = async (d: number) => {
      const agents = fed.agentsOf(d);
      for (let seq = 1, turn = 0; now() < endAt; seq++, turn++) {
        const agent = agents[turn % agents.length]!;
        const write = await record("local-write", d, d, agent, key(names[d]!, seq));
        if (write.status === 200) acked[d] = Math.max(acked[d]!, seq);
        const others = names.map((_, i) => i).filter((i) => i !== d);
        const to = others[turn % others.length]!;
        await record("remote-read", d, to, agent, key(names[to]!, acked[to]!));
        await sleep(100);
      }
    };
    const nemesis = async () => {
      const slot = (o.timeSeconds * 1000) / o.cuts;
      for (let i = 0; i < o.cuts; i++) {
        const slotStart = now();
        await sleep(rng.int(3, 8) * 1000);
        const d = rng.int(0, o.datacenters - 1);
        const pairs = await cutDatacenter(network, fed.nodesByDc, d);
        const at = now();
        log(`WAN cut: ${names[d]} from the others (${pairs} links)`);
        await sleep(Math.min(slot * 0.5, rng.int(15, 25) * 1000));
        await network.heal();
        const healedAt = now();
        cuts.push({ dc: names[d]!, at, healedAt });
        log(`WAN healed after ${((healedAt - at) / 1000).toFixed(1)} s`);
        const rest = slot - (now() - slotStart);
        if (rest > 0) await sleep(rest);
      }
    };
    await Promise.all([...names.map((_, d) => worker(d)), nemesis()]);
    // Nothing lost: every acknowledged key of each datacenter, listed through ?dc= from another one.
    const lost: string[] = [];
    for (const [d, dc] of names.entries()) {
      const from = fed.agentsOf((d + 1) % names.length)[0]!;
      const keys = await waitFor(
        `${dc}'s keys through ?dc=`,
        async () => {
          const res = await httpCall(`${from.url}/v1/kv/wan/${dc}/?keys&dc=${dc}`, "GET", undefined, 15_000);
          return res.kind === "reply" && res.status === 200
            ? new Set(JSON.parse(res.body) as string[])
            : undefined;
        },
        RECOVERY_MS,
        500,
      );
      for (const op of ops) {
        if (op.kind === "local-write" && op.from === dc && op.status === 200 && !keys.has(op.key))
          lost.push(op.key);
      }
    }
    const verdict = checkWan(ops, cuts, { cleanFailureMs: CLEAN_FAILURE_MS, recoveryMs: RECOVERY_MS });
    const anomalies = [...verdict.anomalies, ...lost.map((k) => `acknowledged write ${k} lost`)];
    const report: WanChaosReport = {
      ...verdict,
      valid: anomalies.length === 0,
      anomalies,
      runDir,
      cuts,
      lost,
    };
    await writeFile(join(runDir, "history.json"), JSON.stringify(ops));
    await writeFile(
      join(runDir, "verdict.json"),
      JSON.stringify({ ...report, anomalies: anomalies.slice(0, 200) }, null, 2),
    );
    return report;
  } finally {
    await cluster?.stop();
    network.teardown();
    rmSync(dataRoot, { recursive: true, force: true });
  }
}

export function summarizeWan(r: WanChaosReport): string {
  return [
    `WAN chaos: ${r.valid ? "no anomaly" : `${r.anomalies.length} anomalies`} (${r.runDir})`,
    ...Object.entries(r.stats).map(([k, v]) => `  ${k}: ${v}`),
    ...r.recoveries.map(
      (c) =>
        `  cut of ${c.dc}: requests across it worked again ${c.ms === undefined ? "never" : `${(c.ms / 1000).toFixed(1)} s`} after the heal`,
    ),
    ...r.anomalies.slice(0, 10).map((a) => `  anomaly: ${a}`),
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      datacenters: { type: "string", default: "2" },
      servers: { type: "string", default: "3" },
      time: { type: "string", default: "90" },
      cuts: { type: "string", default: "2" },
      seed: { type: "string", default: String(Date.now() % 1_000_000) },
    },
  });
  const report = await runWanChaos(
    {
      datacenters: Number(values.datacenters),
      servers: Number(values.servers),
      timeSeconds: Number(values.time),
      cuts: Number(values.cuts),
      seed: Number(values.seed),
      runsRoot: fileURLToPath(new URL("../../runs/", import.meta.url)),
    },
    (line) => console.log(line),
  );
  console.log(summarizeWan(report));
  process.exitCode = report.valid ? 0 : 1;
}
