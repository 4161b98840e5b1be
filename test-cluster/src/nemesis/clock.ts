// Restarts one server with a test-only -clock-offset (minutes ahead or behind), holds, then restarts it
// without: correctness must never depend on clocks agreeing.

import { sleep } from "../../../scripts/lib/wait.js";
import { type Nemesis, pickServer } from "./nemesis.js";

export const clockOffset: Nemesis = {
  name: "clock",
  unavailable: () => undefined,
  async run(ctx) {
    const target = await pickServer(ctx, ctx.rng.next() < 0.5);
    if (target === undefined) return;
    const name = ctx.cluster.nodes[target]!.name;
    const offsetS = (ctx.rng.next() < 0.5 ? -1 : 1) * ctx.rng.int(30, 300);
    const wasLeader = (await ctx.cluster.leader()) === target;
    await ctx.cluster.kill(target);
    if (wasLeader) ctx.measureRecovery("kill-leader");
    ctx.cluster.restart(target, ["-clock-offset", `${offsetS}s`]);
    ctx.log("clock-offset", { server: name, offsetSeconds: offsetS });
    await sleep(ctx.rng.int(5, 10) * ctx.electionTimeoutMs);
    await ctx.cluster.kill(target);
    ctx.cluster.restart(target);
    ctx.log("clock-reset", { server: name });
  },
};
