// SIGSTOP a server (the leader half the time) for longer than the election timeout, then SIGCONT: a process
// that wakes up believing it still leads, the classic stale-leader scenario.

import { sleep } from "../../../scripts/lib/wait.js";
import { type Nemesis, pickServer } from "./nemesis.js";

export const pause: Nemesis = {
  name: "pause",
  unavailable: () => undefined,
  async run(ctx) {
    const leader = ctx.rng.next() < 0.5;
    const target = await pickServer(ctx, leader);
    if (target === undefined) return;
    const wasLeader = (await ctx.cluster.leader()) === target;
    ctx.cluster.pause(target);
    ctx.log("pause", { server: ctx.cluster.nodes[target]!.name, leader: wasLeader });
    if (wasLeader) ctx.measureRecovery("pause-leader");
    await sleep(ctx.rng.int(2, 6) * ctx.electionTimeoutMs);
    ctx.cluster.resume(target);
    ctx.log("resume", { server: ctx.cluster.nodes[target]!.name });
  },
};
