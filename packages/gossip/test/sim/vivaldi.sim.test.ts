import { describe, expect, it } from "vitest";
import { coordinateDistance } from "../../src/index.js";
import { SimCluster } from "./cluster.js";

function pearson(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] ?? 0) - mx;
    const dy = (ys[i] ?? 0) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxy / Math.sqrt(sxx * syy);
}

describe("Vivaldi in the simulated cluster", () => {
  it("converges so estimated RTTs track the simulated latencies", async () => {
    const sim = await SimCluster.start({ members: 50, seed: 21, spreadMs: 100, jitter: 0.05 });
    sim.bootstrap();
    sim.runFor(300_000);
    const members = [...sim.members.values()];
    const estimated: number[] = [];
    const actual: number[] = [];
    let relativeError = 0;
    for (const a of members) {
      for (const b of members) {
        if (a.name >= b.name) continue;
        const est = coordinateDistance(a.node.coordinate(), b.node.coordinate()) * 1000;
        const rtt = 2 * sim.baseLatency(a.name, b.name);
        estimated.push(est);
        actual.push(rtt);
        relativeError += Math.abs(est - rtt) / rtt;
      }
    }
    expect(pearson(estimated, actual)).toBeGreaterThan(0.9);
    expect(relativeError / actual.length).toBeLessThan(0.25);
    for (const m of members) expect(m.node.coordinate().Error).toBeLessThan(0.5);
  });
});
