// What a nemesis is: a fault injected into the cluster, held for a while, then healed, with every step
// logged. Recovery measurements start at the moments that matter (a leader killed, a partition healed).

import type { Prng } from "@cairn/testkit";
import type { Cluster } from "../cluster/cluster.js";

export interface NemesisContext {
  readonly cluster: Cluster;
  readonly rng: Prng;
  /** Election timeout of the servers; pauses and partitions last longer than it. */
  readonly electionTimeoutMs: number;
  log(event: string, detail?: Record<string, unknown>): void;
  /** Measures, from now, how long until a write succeeds again (an unavailability window). */
  measureRecovery(cause: string): void;
}

export interface Nemesis {
  readonly name: string;
  /** Why it cannot run on this cluster (partitions need namespaces), or undefined. */
  unavailable(cluster: Cluster): string | undefined;
  run(ctx: NemesisContext): Promise<void>;
}

/** A server to act on: the leader when `leader` is set (if one is known), else a random serving one. */
export async function pickServer(ctx: NemesisContext, leader: boolean): Promise<number | undefined> {
  if (leader) {
    const l = await ctx.cluster.leader();
    if (l !== undefined) return l;
  }
  const serving = ctx.cluster.nodes.filter((n) => ctx.cluster.isServing(n.index)).map((n) => n.index);
  return serving.length > 0 ? ctx.rng.pick(serving) : undefined;
}
