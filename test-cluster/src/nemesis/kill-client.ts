// kill -9 of a client agent; it restarts on its kept data directory after a while and rejoins the LAN pool.
// Meanwhile its workload clients fail over to other agents, and the sessions made through it lose their node
// (serfHealth turns critical), which must free their locks without two holders.

import { sleep } from "../../../scripts/lib/wait.js";
import type { Nemesis } from "./nemesis.js";

export const killClient: Nemesis = {
  name: "kill-client",
  unavailable: (cluster) =>
    cluster.clients.length === 0 ? "no client agents (--clients 0); skipped" : undefined,
  async run(ctx) {
    const running = ctx.cluster.clients.filter((c) => ctx.cluster.isRunning(c.index));
    if (running.length === 0) return;
    const target = ctx.rng.pick(running);
    await ctx.cluster.kill(target.index);
    ctx.log("kill-client", { client: target.name });
    await sleep(ctx.rng.int(2, 6) * ctx.electionTimeoutMs);
    ctx.cluster.restart(target.index);
    ctx.log("restart-client", { client: target.name });
  },
};
