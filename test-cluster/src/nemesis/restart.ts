// A clean restart (SIGTERM, then start again on the kept data directory), as a rolling upgrade does.

import { sleep } from "../../../scripts/lib/wait.js";
import { type Nemesis, pickServer } from "./nemesis.js";

export const restart: Nemesis = {
  name: "restart",
  unavailable: () => undefined,
  async run(ctx) {
    const target = await pickServer(ctx, false);
    if (target === undefined) return;
    const wasLeader = (await ctx.cluster.leader()) === target;
    await ctx.cluster.terminate(target);
    ctx.log("terminate", { server: ctx.cluster.nodes[target]!.name, leader: wasLeader });
    if (wasLeader) ctx.measureRecovery("restart-leader");
    ctx.cluster.restart(target);
    ctx.log("restart", { server: ctx.cluster.nodes[target]!.name });
    await sleep(ctx.rng.int(2, 4) * ctx.electionTimeoutMs);
  },
};
