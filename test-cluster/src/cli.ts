// node --import tsx test-cluster/src/cli.ts --servers 5 --clients 2 --time 120 --nemesis kill-leader,partition,pause
//   --workload register,set,lock,bank --seed S [--network auto|loopback|netns] [--revision HEAD] [--tls]
// --tls runs every agent with mutual TLS on the server RPC port (certificates made for the run).
// --clients N starts N client agents next to the servers; workloads send a share of their requests through them.
// --nemesis none: the workloads alone, no fault (the leader-change count then shows spurious elections).
// --raft-multiplier N sets the servers' performance { raft_multiplier } (default: the agent's default).
// --revision runs the servers from that commit, extracted to a temporary tree (immune to concurrent edits).
// Exit status: 0 no anomaly, 1 anomaly, 2 undecided (a check ran out of budget or a final read failed).

import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { NEMESES } from "./nemesis/index.js";
import { runChaos, summarize, WORKLOADS } from "./run.js";

const { values } = parseArgs({
  options: {
    servers: { type: "string", default: "3" },
    clients: { type: "string", default: "0" },
    time: { type: "string", default: "60" },
    nemesis: { type: "string", default: [...NEMESES.keys()].join(",") },
    workload: { type: "string", default: [...WORKLOADS.keys()].join(",") },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    network: { type: "string", default: "auto" },
    revision: { type: "string" },
    tls: { type: "boolean", default: false },
    "raft-multiplier": { type: "string" },
  },
});

function integer(name: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name}: expected an integer >= ${min}, got ${text}`);
  return n;
}
const positive = (name: string, text: string) => integer(name, text, 1);

const network = values.network;
if (network !== "auto" && network !== "loopback" && network !== "netns") {
  throw new Error(`--network: expected auto, loopback or netns, got ${network}`);
}
const list = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");

const report = await runChaos(
  {
    servers: positive("servers", values.servers),
    clients: integer("clients", values.clients, 0),
    timeSeconds: positive("time", values.time),
    nemeses:
      values.nemesis === "all" ? [...NEMESES.keys()] : values.nemesis === "none" ? [] : list(values.nemesis),
    workloads: values.workload === "all" ? [...WORKLOADS.keys()] : list(values.workload),
    seed: positive("seed", values.seed),
    network,
    tls: values.tls,
    ...(values.revision ? { revision: values.revision } : {}),
    ...(values["raft-multiplier"]
      ? { raftMultiplier: integer("raft-multiplier", values["raft-multiplier"], 1) }
      : {}),
    runsRoot: fileURLToPath(new URL("../runs/", import.meta.url)),
  },
  (line) => console.log(line),
);
console.log(summarize(report));
process.exitCode = report.valid === true ? 0 : report.valid === false ? 1 : 2;
