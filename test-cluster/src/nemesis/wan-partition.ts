// The WAN-partition nemesis of a federation: one datacenter (its servers and client agents) cut from every
// other datacenter, gossip and RPC alike (every link between the two sides dropped), while each side keeps
// its own links. Needs the namespace network (links cannot be cut on loopback).

import type { Network } from "../cluster/network.js";
import { pairsBetween } from "../cluster/network.js";

/** The node pairs to cut to isolate `dc` (node indexes by datacenter) from the others. */
export function wanPartitionPairs(nodesByDc: readonly (readonly number[])[], dc: number): [number, number][] {
  const others = nodesByDc.flatMap((nodes, d) => (d === dc ? [] : nodes));
  return pairsBetween([nodesByDc[dc]!, others]);
}

/** Cuts `dc` from the others on `network`; `network.heal()` restores every link. */
export async function cutDatacenter(
  network: Network,
  nodesByDc: readonly (readonly number[])[],
  dc: number,
): Promise<number> {
  const pairs = wanPartitionPairs(nodesByDc, dc);
  for (const [a, b] of pairs) await network.cut(a, b);
  return pairs.length;
}
