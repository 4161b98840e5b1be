// Network partitions (namespaces only): a random majority/minority split, the leader isolated, a bridge (two
// halves that both see one middle server), and a ring (each server sees only its two neighbours). Each client
// agent lands next to a random server and shares its fate. Healed after a while; recovery is measured from
// the heal, and from the cut when it isolates the leader.

import type { Prng } from "@cairn/testkit";
import { sleep } from "../../../scripts/lib/wait.js";
import { clientPairs, pairsBetween } from "../cluster/network.js";
import type { Nemesis } from "./nemesis.js";

export type PartitionShape = "majority-minority" | "isolate-leader" | "bridge" | "ring";
const SHAPES: readonly PartitionShape[] = ["majority-minority", "isolate-leader", "bridge", "ring"];

/** The node pairs to cut for `shape` on `size` nodes (pure, for the tests). */
export function partitionPairs(
  shape: PartitionShape,
  size: number,
  rng: Prng,
  leader: number | undefined,
): [number, number][] {
  const nodes = rng.shuffle(Array.from({ length: size }, (_, i) => i));
  switch (shape) {
    case "majority-minority": {
      const minority = Math.floor((size - 1) / 2);
      return pairsBetween([nodes.slice(0, minority), nodes.slice(minority)]);
    }
    case "isolate-leader": {
      const alone = leader ?? nodes[0]!;
      return pairsBetween([[alone], nodes.filter((n) => n !== alone)]);
    }
    case "bridge": {
      // nodes[0] is the bridge; the rest split in two halves that each see it.
      const rest = nodes.slice(1);
      const half = Math.floor(rest.length / 2);
      return pairsBetween([rest.slice(0, half), rest.slice(half)]);
    }
    case "ring": {
      const pairs: [number, number][] = [];
      for (let i = 0; i < size; i++) {
        for (let j = i + 1; j < size; j++) {
          const distance = Math.min(j - i, size - (j - i));
          if (distance > 1) pairs.push([nodes[i]!, nodes[j]!]);
        }
      }
      return pairs;
    }
  }
}

export const partition: Nemesis = {
  name: "partition",
  unavailable: (cluster) =>
    cluster.network.canPartition
      ? undefined
      : "partitions need network namespaces (run as root on Linux with iproute2); skipped",
  async run(ctx) {
    // On three servers a ring is every link: nothing to cut.
    const shape = ctx.rng.pick(SHAPES.filter((s) => s !== "ring" || ctx.cluster.size >= 4));
    const leader = await ctx.cluster.leader();
    const serverPairs = partitionPairs(shape, ctx.cluster.size, ctx.rng, leader);
    const anchors = ctx.cluster.clients.map((c) => [c.index, ctx.rng.int(0, ctx.cluster.size - 1)] as const);
    const pairs = [...serverPairs, ...clientPairs(serverPairs, anchors)];
    for (const [a, b] of pairs) await ctx.cluster.network.cut(a, b);
    const names = (p: [number, number]) => `${ctx.cluster.agent(p[0]).name}-${ctx.cluster.agent(p[1]).name}`;
    ctx.log("partition", { shape, cut: pairs.map(names) });
    if (shape === "isolate-leader" && leader !== undefined) ctx.measureRecovery("isolate-leader");
    await sleep(ctx.rng.int(3, 8) * ctx.electionTimeoutMs);
    await ctx.cluster.network.heal();
    ctx.log("heal");
    ctx.measureRecovery(`heal-${shape}`);
  },
};
