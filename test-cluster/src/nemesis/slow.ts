// tc netem on a few servers' links: delay with jitter and some loss, then healed. Needs namespaces and a
// kernel with sch_netem.

import { sleep } from "../../../scripts/lib/wait.js";
import type { Nemesis } from "./nemesis.js";

export const slowNetwork: Nemesis = {
  name: "slow",
  unavailable: (cluster) =>
    !cluster.network.canPartition
      ? "tc netem needs network namespaces (run as root on Linux); skipped"
      : cluster.network.canShape
        ? undefined
        : "this kernel has no netem queueing discipline (sch_netem); skipped",
  async run(ctx) {
    const count = ctx.rng.int(1, ctx.cluster.size);
    const targets = ctx.rng.shuffle(ctx.cluster.nodes.map((n) => n.index)).slice(0, count);
    const delayMs = ctx.rng.int(20, 300);
    const lossPercent = ctx.rng.int(0, 10);
    for (const i of targets)
      await ctx.cluster.network.shape(i, delayMs, Math.round(delayMs / 2), lossPercent);
    ctx.log("slow", { servers: targets.map((i) => ctx.cluster.nodes[i]!.name), delayMs, lossPercent });
    await sleep(ctx.rng.int(5, 10) * ctx.electionTimeoutMs);
    await ctx.cluster.network.heal();
    ctx.log("heal");
    ctx.measureRecovery("heal-slow");
  },
};
