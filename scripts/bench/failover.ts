// Leader failover benchmark (not a test): three and five (or --sizes) servers on loopback, fsync on. The Raft leader
// is killed with SIGKILL and a write is sent to a survivor every 50 ms (each attempt on its own, so a request
// Cairn holds through the election counts from when it was sent); the time from the kill to the first write
// that succeeds is one sample. The killed member is restarted and the cluster settles between kills. Cairn
// at each raft_multiplier asked for, and etcd at its defaults, in the same run.
//
//   node --import tsx scripts/bench/failover.ts [--kills 10] [--sizes 3,5] [--multipliers default] [--no-etcd]
//        [--keep]

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import type { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type AgentProcess, spawnAgent } from "../lib/agent.js";
import { startCairnCluster } from "../lib/cluster.js";
import { http } from "../lib/http.js";
import { awaitLeader } from "../lib/leader.js";
import { kill, stopAll } from "../lib/processes.js";
import { sleep, waitFor } from "../lib/wait.js";
import { useBuiltAgents } from "./lib/built.js";
import { startEtcdCluster } from "./lib/etcd-cluster.js";
import { type HttpTarget, keepAliveAgent } from "./lib/http-client.js";
import { cairnKv, etcdKv, type KvDriver } from "./lib/kv-drivers.js";
import { Latencies } from "./lib/latency.js";
import { formatMs, markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    kills: { type: "string", default: "10" },
    sizes: { type: "string", default: "3,5" },
    multipliers: { type: "string", default: "default" },
    "no-etcd": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
  },
});
const kills = Number(values.kills);
const SIZES = values.sizes.split(",").map(Number);
const RETRY_MS = 50;
/** One write attempt; a held Cairn request answers well within this once a leader exists. */
const ATTEMPT_TIMEOUT_MS = 15_000;
const GIVE_UP_MS = 60_000;

/** A cluster under test as the benchmark drives it: whichever system runs underneath. */
interface Subject {
  label: string;
  driver: KvDriver;
  /** The current leader once every member runs and agrees on it (and, for Cairn, all are voters again). */
  settle(): Promise<{ leader: number; targets: HttpTarget[] }>;
  kill(index: number): Promise<void>;
  restart(index: number): void;
  stop(): Promise<void>;
}

/** Sends a write to `target` every RETRY_MS until one succeeds; ms from `since` to that success. */
async function timeToWrite(
  subject: Subject,
  agent: Agent,
  target: HttpTarget,
  since: number,
): Promise<number> {
  let done: number | undefined;
  let n = 0;
  const inFlight: Promise<void>[] = [];
  while (done === undefined) {
    if (performance.now() - since > GIVE_UP_MS)
      throw new Error(`${subject.label}: no write for ${GIVE_UP_MS} ms`);
    const key = `failover/${Date.now()}-${n++}`;
    inFlight.push(
      withTimeout(subject.driver.put(agent, target, key, Buffer.from("v")), ATTEMPT_TIMEOUT_MS).then(
        () => {
          done ??= performance.now() - since;
        },
        () => {},
      ),
    );
    await sleep(RETRY_MS);
  }
  return done;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function measure(subject: Subject): Promise<Latencies> {
  const samples = new Latencies();
  const agent = keepAliveAgent(64);
  try {
    for (let i = 0; i < kills; i++) {
      const { leader, targets } = await subject.settle();
      const survivor = targets.findIndex((_, j) => j !== leader);
      // A warm connection to the survivor, as a client that was already writing has.
      await subject.driver.put(agent, targets[survivor]!, "failover/warm", Buffer.from("v"));
      const since = performance.now();
      await subject.kill(leader);
      const ms = await timeToWrite(subject, agent, targets[survivor]!, since);
      samples.record(ms);
      console.error(`${subject.label}: kill ${i + 1}/${kills}: writes resumed after ${formatMs(ms)} ms`);
      subject.restart(leader);
    }
  } finally {
    agent.destroy();
    await subject.stop();
  }
  return samples;
}

async function cairnSubject(root: string, multiplier: string, size: number): Promise<Subject> {
  const flags = multiplier === "default" ? [] : ["-hcl", `performance { raft_multiplier = ${multiplier} }`];
  const cluster = await startCairnCluster(size, root, { flags });
  const servers: AgentProcess[] = [...cluster.servers];
  const targets = servers.map((s) => ({ host: s.http.host, port: s.http.port }));
  return {
    label: `Cairn (raft_multiplier ${multiplier === "default" ? "default" : multiplier})`,
    driver: cairnKv,
    async settle() {
      const leader = await awaitLeader(servers, GIVE_UP_MS);
      // The restarted server must be a voter again, or the next kill would leave no quorum.
      await waitFor(
        "every server a voter",
        async () => {
          const r = await http(`${leader.url}/v1/operator/raft/configuration`);
          const conf = JSON.parse(r.text) as { Servers: { Voter: boolean }[] };
          return conf.Servers.filter((s) => s.Voter).length === size || undefined;
        },
        GIVE_UP_MS,
        200,
      );
      return { leader: servers.indexOf(leader), targets };
    },
    kill: (i) => kill(servers[i]!.process),
    restart(i) {
      servers[i] = spawnAgent(servers[i]!.options);
    },
    stop: () => stopAll(),
  };
}

async function etcdSubject(root: string, size: number): Promise<{ subject: Subject; version: string }> {
  const cluster = await startEtcdCluster(size, root);
  const targets = cluster.members.map((m) => m.client);
  return {
    version: cluster.version,
    subject: {
      label: `etcd ${cluster.version}`,
      driver: etcdKv,
      async settle() {
        const leader = await cluster.awaitLeader(GIVE_UP_MS);
        return { leader: cluster.members.indexOf(leader), targets };
      },
      kill: (i) => kill(cluster.members[i]!.process),
      restart: (i) => cluster.restart(cluster.members[i]!),
      stop: () => cluster.stop(),
    },
  };
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "cairn-bench-failover-"));
  const rows: string[][] = [];
  const record = (label: string, size: number, s: Latencies) =>
    rows.push([label, String(size), String(s.count), formatMs(s.percentile(50)), formatMs(s.max())]);
  try {
    for (const size of SIZES) {
      const multipliers = values.multipliers.split(",").filter((m) => m !== "");
      for (const [i, m] of multipliers.entries()) {
        const dir = join(root, `cairn-${size}-${i}`);
        await mkdir(dir, { recursive: true });
        const subject = await cairnSubject(dir, m, size);
        record(subject.label, size, await measure(subject));
      }
      if (!values["no-etcd"]) {
        const dir = join(root, `etcd-${size}`);
        await mkdir(dir, { recursive: true });
        const { subject } = await etcdSubject(dir, size);
        record(`${subject.label} (defaults)`, size, await measure(subject));
      }
    }
  } finally {
    await stopAll();
    if (!values.keep) await rm(root, { recursive: true, force: true });
    else console.error(`kept ${root}`);
  }
  console.log(
    `Failover: the leader killed with SIGKILL ${kills} times per cluster; time from the kill until a ` +
      `write sent to a survivor (one every ${RETRY_MS} ms) succeeds.\n`,
  );
  console.log(markdownTable(["system", "servers", "kills", "p50 ms", "max ms"], rows));
}

useBuiltAgents();
await main();
