// The short chaos mix for CI: three real servers and a client agent, every workload (a share of its requests
// through the client agent), leader kills, client kills and pauses (and partitions when the harness may
// create network namespaces), about three minutes. Any anomaly fails the test; the run
// directory under test-cluster/runs/ keeps the histories, the events and the server logs.

import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { namespacesAvailable } from "../src/cluster/netns.js";
import { runChaos, summarize } from "../src/run.js";

it("finds no anomaly under leader and client kills, pauses and partitions, and recovers within 10 s", async () => {
  const nemeses = ["kill-leader", "kill-client", "pause", ...(namespacesAvailable() ? ["partition"] : [])];
  const report = await runChaos(
    {
      servers: 3,
      clients: 1,
      timeSeconds: 140,
      nemeses,
      workloads: ["register", "set", "lock", "bank"],
      seed: Number(process.env.CAIRN_CHAOS_SEED ?? Date.now() % 1_000_000),
      network: "auto",
      runsRoot: fileURLToPath(new URL("../runs/", import.meta.url)),
    },
    () => {},
  );
  const summary = summarize(report);
  console.log(summary);
  expect(report.valid, summary).toBe(true);
  // The client agent carried its share of the requests.
  expect(report.traffic.find((t) => t.agent === "c1")!.answered, summary).toBeGreaterThan(100);
  expect(report.crashes, summary).toEqual([]);
  expect(
    report.windows.filter((w) => w.ms === undefined || w.ms > 10_000),
    summary,
  ).toEqual([]);
}, 240_000);
