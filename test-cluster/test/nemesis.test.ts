import { Prng } from "@cairn/testkit";
import { describe, expect, it } from "vitest";
import { clientPairs } from "../src/cluster/network.js";
import { partitionPairs } from "../src/nemesis/partition.js";

/** For each node, the nodes it can still reach. */
function reachable(size: number, cut: [number, number][]): number[][] {
  const blocked = new Set(cut.flatMap(([a, b]) => [`${a}-${b}`, `${b}-${a}`]));
  return Array.from({ length: size }, (_, a) =>
    Array.from({ length: size }, (_, b) => b).filter((b) => b !== a && !blocked.has(`${a}-${b}`)),
  );
}

describe("partition shapes on five servers", () => {
  const rng = new Prng(42);

  it("majority-minority splits 3/2", () => {
    const sides = reachable(5, partitionPairs("majority-minority", 5, rng, undefined)).map((r) => r.length);
    expect(sides.sort()).toEqual([1, 1, 2, 2, 2]);
  });

  it("isolate-leader cuts the leader from everyone else", () => {
    const r = reachable(5, partitionPairs("isolate-leader", 5, rng, 3));
    expect(r[3]).toEqual([]);
    for (const i of [0, 1, 2, 4]) expect(r[i]).toHaveLength(3);
  });

  it("bridge leaves one server seeing both halves", () => {
    const r = reachable(5, partitionPairs("bridge", 5, rng, undefined));
    expect(r.filter((x) => x.length === 4)).toHaveLength(1);
    expect(r.filter((x) => x.length === 2)).toHaveLength(4);
  });

  it("ring leaves every server exactly two neighbours, all connected", () => {
    const r = reachable(5, partitionPairs("ring", 5, rng, undefined));
    expect(r.every((x) => x.length === 2)).toBe(true);
    const seen = new Set([0]);
    const queue = [0];
    while (queue.length > 0) for (const n of r[queue.pop()!]!) if (!seen.has(n) && seen.add(n)) queue.push(n);
    expect(seen.size).toBe(5);
  });
});

describe("client agents in a partition", () => {
  it("lose the links of the server they stand next to, and to clients on the other side", () => {
    // Servers 0..2; 0 is isolated. Client 3 stands next to 0, clients 4 and 5 next to 1 and 2.
    const servers: [number, number][] = [
      [0, 1],
      [0, 2],
    ];
    const cuts = clientPairs(servers, [
      [3, 0],
      [4, 1],
      [5, 2],
    ]);
    const r = reachable(6, [...servers, ...cuts]);
    expect(r[3]).toEqual([0]);
    expect(r[4]).toEqual([1, 2, 5]);
    expect(r[5]).toEqual([1, 2, 4]);
    expect(r[0]).toEqual([3]);
  });
});
