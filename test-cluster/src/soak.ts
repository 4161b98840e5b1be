// The no-spurious-election soak: the chaos workloads against a healthy cluster, no fault at all, for a long
// time (default 30 minutes), optionally with CPU burners keeping every core busy; every leader change after
// the first election is one no fault caused. Exit status 0 when there was none, 1 otherwise, 2 when the
// workloads' checks were undecided.
//
//   node --conditions=source --import tsx test-cluster/src/soak.ts [--minutes 30] [--servers 3] [--burn 2]
//     [--raft-multiplier N] [--seed S] [--revision HEAD]
// --burn N starts N busy-looping processes at the lowest priority (nice 19): the host stays at 100% CPU
// without taking time from anything else that wants it.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runChaos, summarize, WORKLOADS } from "./run.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "30" },
    servers: { type: "string", default: "3" },
    burn: { type: "string", default: "0" },
    "raft-multiplier": { type: "string" },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
    revision: { type: "string" },
  },
});

function integer(name: string, text: string, min: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name}: expected an integer >= ${min}, got ${text}`);
  return n;
}

const burners = Array.from({ length: integer("burn", values.burn, 0) }, () =>
  spawn("nice", ["-n", "19", process.execPath, "-e", "for (;;) {}"], { stdio: "ignore" }),
);
const stopBurners = () => {
  for (const b of burners) if (b.exitCode === null) b.kill("SIGKILL");
};
process.on("exit", stopBurners);

try {
  const report = await runChaos(
    {
      servers: integer("servers", values.servers, 1),
      timeSeconds: integer("minutes", values.minutes, 1) * 60,
      nemeses: [],
      workloads: [...WORKLOADS.keys()],
      seed: integer("seed", values.seed, 1),
      network: "loopback",
      ...(values["raft-multiplier"]
        ? { raftMultiplier: integer("raft-multiplier", values["raft-multiplier"], 1) }
        : {}),
      ...(values.revision ? { revision: values.revision } : {}),
      runsRoot: fileURLToPath(new URL("../runs/", import.meta.url)),
    },
    (line) => console.log(line),
  );
  console.log(summarize(report));
  const unprovoked = report.leaderChanges.filter((c) => c.cause === undefined).length;
  console.log(`spurious leader changes in ${values.minutes} minutes without faults: ${unprovoked}`);
  process.exitCode = unprovoked > 0 || report.valid === false ? 1 : report.valid === true ? 0 : 2;
} finally {
  stopBurners();
}
