// Gossip failure detection and bandwidth in the deterministic simulator, at memberlist's default LAN
// settings: for each cluster size, bootstrap (everyone joins through one member), wait for the join storm's
// broadcasts to drain, measure steady-state bytes per member per second over one scaled push-pull period
// (bytes as encoded frames, AES-GCM on), then crash members one at a time and time their detection.
//
//   node --import tsx scripts/bench/gossip.ts [--sizes 100,1000] [--trials 20] [--seed 1] [--loss-seeds 30]
//
// Then a false-positive scan: --loss-seeds runs of 100 members for 120 s under 10% packet loss, counting
// healthy members declared dead.
//
// "suspected" = first member marks the victim suspect (SWIM's detection); "dead (first)" = first member
// declares it dead (after Lifeguard's suspicion timeout); "dead (all)" = every live member agrees.

import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { FrameCodec, lanConfig, pushPullScale, suspicionTimeout } from "../../packages/gossip/src/index.js";
import { nameOf, SimCluster } from "../../packages/gossip/test/sim/cluster.js";
import { markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "100,1000" },
    trials: { type: "string", default: "20" },
    seed: { type: "string", default: "1" },
    "loss-seeds": { type: "string", default: "30" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const trials = Number(values.trials);
const seed = Number(values.seed);

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const codec = new FrameCodec(randomBytes(32));
const rows: string[][] = [];

for (const n of sizes) {
  const wallStart = Date.now();
  const sim = await SimCluster.start({
    members: n,
    seed,
    measure: (from, packet) => codec.encode(from, packet).length,
  });
  sim.bootstrap(5000);
  const drained = () =>
    sim.converged() && [...sim.members.values()].every((m) => m.node.stats().queuedBroadcasts === 0);
  while (!drained() && sim.now < 600_000) sim.runFor(5000);
  sim.events.length = 0;

  const window = Math.max(60_000, pushPullScale(lanConfig().pushPullInterval, n));
  const bytesBefore = sim.totalBytes();
  const windowStart = sim.now;
  sim.runFor(window);
  const bytesPerMemberPerSec = (sim.totalBytes() - bytesBefore) / n / ((sim.now - windowStart) / 1000);

  const suspected: number[] = [];
  const firstDead: number[] = [];
  const allDead: number[] = [];
  const spacing = suspicionTimeout(4, n, 1000) * 6 + 10_000;
  for (let t = 0; t < trials; t++) {
    const victim = nameOf(1 + ((t * 7919) % (n - 1)));
    const crashAt = sim.now;
    sim.crash(victim);
    let seenSuspect = Number.NaN;
    let seenDead = Number.NaN;
    let everyone = Number.NaN;
    while (sim.now - crashAt < spacing && Number.isNaN(everyone)) {
      sim.runFor(100);
      const views = sim.live().map((m) => m.node.member(victim)?.state);
      if (Number.isNaN(seenSuspect) && views.some((s) => s === "suspect" || s === "dead"))
        seenSuspect = sim.now - crashAt;
      if (Number.isNaN(seenDead) && views.some((s) => s === "dead")) seenDead = sim.now - crashAt;
      if (views.every((s) => s === "dead")) everyone = sim.now - crashAt;
    }
    suspected.push(seenSuspect);
    firstDead.push(seenDead);
    allDead.push(everyone);
    sim.runFor(5000);
  }
  const falsePositives = sim.events.filter(
    (e) => e.event.type === "member-failed" && !sim.get(e.event.member.name).crashed,
  ).length;
  rows.push([
    String(n),
    `${seconds(percentile(suspected, 50))} / ${seconds(percentile(suspected, 99))}`,
    `${seconds(percentile(firstDead, 50))} / ${seconds(percentile(firstDead, 99))}`,
    `${seconds(percentile(allDead, 50))} / ${seconds(percentile(allDead, 99))}`,
    Math.round(bytesPerMemberPerSec).toString(),
    String(falsePositives),
    `${((Date.now() - wallStart) / 1000).toFixed(0)} s`,
  ]);
  console.error(`n=${n} done`);
}

console.log(`Gossip, simulated, default LAN settings, ${trials} crashes per size, seed ${seed}\n`);
console.log(
  markdownTable(
    [
      "members",
      "suspected p50 / p99 (s)",
      "dead, first p50 / p99 (s)",
      "dead, all p50 / p99 (s)",
      "bytes/member/s",
      "false positives",
      "wall",
    ],
    rows,
  ),
);

const lossSeeds = Number(values["loss-seeds"]);
let falseDeaths = 0;
let runsWithFalseDeaths = 0;
for (let s = 1; s <= lossSeeds; s++) {
  const sim = await SimCluster.start({ members: 100, seed: s, loss: 0.1 });
  sim.bootstrap();
  sim.runFor(120_000);
  const deaths = sim.events.filter((e) => e.event.type === "member-failed").length;
  falseDeaths += deaths;
  if (deaths > 0) runsWithFalseDeaths++;
}
console.log(`\n10% packet loss, 100 members, 120 s, seeds 1..${lossSeeds}\n`);
console.log(
  markdownTable(
    ["runs", "member-seconds", "runs with a false death", "false member-failed events (all observers)"],
    [[String(lossSeeds), String(lossSeeds * 100 * 120), String(runsWithFalseDeaths), String(falseDeaths)]],
  ),
);
