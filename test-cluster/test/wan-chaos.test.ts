// WAN-partition chaos for CI (needs network namespaces: root on Linux): two datacenters of three servers
// and a client agent each, a workload writing locally and reading the other datacenter through `?dc=`,
// two cuts of one datacenter from the other. Local writes never fail, requests across the cut fail
// cleanly within the deadline, and work again after the heal with every acknowledged write there.

import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { namespacesAvailable } from "../src/cluster/netns.js";
import { runWanChaos, summarizeWan } from "../src/federation/wan-chaos.js";

it.skipIf(!namespacesAvailable())(
  "keeps each datacenter working through WAN cuts; requests across a cut fail cleanly, then recover",
  async () => {
    const report = await runWanChaos(
      {
        datacenters: 2,
        servers: 3,
        timeSeconds: 100,
        cuts: 2,
        seed: Number(process.env.CAIRN_CHAOS_SEED ?? Date.now() % 1_000_000),
        runsRoot: fileURLToPath(new URL("../runs/", import.meta.url)),
      },
      () => {},
    );
    const summary = summarizeWan(report);
    console.log(summary);
    expect(report.valid, summary).toBe(true);
    expect(report.cuts, summary).toHaveLength(2);
    // The cuts were felt (requests across them failed cleanly), and each healed.
    expect(report.stats["reads across a cut failed cleanly"] ?? 0, summary).toBeGreaterThan(0);
    expect(report.stats["local writes ok"] ?? 0, summary).toBeGreaterThan(100);
    for (const r of report.recoveries) expect(r.ms, summary).toBeDefined();
    expect(report.lost, summary).toEqual([]);
  },
  420_000,
);
