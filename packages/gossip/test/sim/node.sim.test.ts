import { describe, expect, it } from "vitest";
import { suspicionTimeout } from "../../src/index.js";
import { NodeCluster, nameOf } from "./node-cluster.js";

// The production GossipNode (not a copy of its loop) over simulated network and virtual time, seeded.
describe("GossipNode simulation", () => {
  it("declares a killed node failed on every other node, and no live node", async () => {
    for (const seed of [1, 2, 3]) {
      const n = 30;
      const sim = await NodeCluster.start({ members: n, seed });
      expect(sim.runUntil(() => sim.converged(), 60_000)).toBe(true);
      sim.runFor(5000);
      const victim = nameOf(7);
      const crashAt = sim.clock.now();
      await sim.crash(victim);
      sim.runFor(suspicionTimeout(4, n, 1000) + 5000);
      for (const observer of sim.live())
        expect(sim.stateOf(observer, victim), `${observer} (seed ${seed})`).toBe("dead");
      expect(new Set(sim.failures.filter((f) => f.subject === victim).map((f) => f.observer)).size).toBe(
        n - 1,
      );
      expect(sim.failures.filter((f) => f.subject !== victim || f.at < crashAt)).toEqual([]);
      await sim.stop();
    }
  });

  it("heals a partition: both sides declare each other failed, then all see each other alive", async () => {
    const n = 20;
    const sim = await NodeCluster.start({ members: n, seed: 42 });
    expect(sim.runUntil(() => sim.converged(), 60_000)).toBe(true);
    const names = sim.live();
    const left = names.slice(0, n / 2);
    const right = names.slice(n / 2);
    sim.network.partition([left, right]);
    sim.runFor(60_000);
    expect(sim.stateOf(left[0]!, right[0]!)).toBe("dead");
    expect(sim.stateOf(right[0]!, left[0]!)).toBe("dead");
    sim.network.heal();
    // Dead members are found again through push-pull with the remembered addresses (memberlist's reconnect).
    expect(sim.runUntil(() => sim.converged(), 180_000)).toBe(true);
    await sim.stop();
  });

  it("declares no live node failed under 10% packet loss", async () => {
    for (const seed of [1, 2, 3, 4]) {
      const sim = await NodeCluster.start({ members: 40, seed, loss: 0.1 });
      sim.runFor(120_000);
      expect(sim.failures, `seed ${seed}`).toEqual([]);
      expect(sim.converged()).toBe(true);
      expect(sim.network.stats().lost).toBeGreaterThan(0);
      await sim.stop();
    }
  });

  it("replays exactly from its seed", async () => {
    const run = async () => {
      const sim = await NodeCluster.start({ members: 15, seed: 9, loss: 0.05 });
      sim.runFor(20_000);
      await sim.crash(nameOf(3));
      sim.runFor(30_000);
      const trace = { failures: sim.failures, network: sim.network.stats(), at: sim.clock.now() };
      await sim.stop();
      return trace;
    };
    const first = await run();
    expect(first.failures.length).toBe(14);
    expect(await run()).toEqual(first);
  });
});
