// kill -9 of the leader or of a random server; it restarts on its kept data directory after a while.

import { sleep } from "../../../scripts/lib/wait.js";
import { type Nemesis, type NemesisContext, pickServer } from "./nemesis.js";

function killNemesis(name: string, leader: boolean): Nemesis {
  return {
    name,
    unavailable: () => undefined,
    async run(ctx: NemesisContext) {
      const target = await pickServer(ctx, leader);
      if (target === undefined) return;
      const wasLeader = leader || (await ctx.cluster.leader()) === target;
      await ctx.cluster.kill(target);
      ctx.log("kill", { server: ctx.cluster.nodes[target]!.name, leader: wasLeader });
      if (wasLeader) ctx.measureRecovery("kill-leader");
      await sleep(ctx.rng.int(2, 6) * ctx.electionTimeoutMs);
      ctx.cluster.restart(target);
      ctx.log("restart", { server: ctx.cluster.nodes[target]!.name });
    },
  };
}

export const killLeader = killNemesis("kill-leader", true);
export const killRandom = killNemesis("kill-random", false);
