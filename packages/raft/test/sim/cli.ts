import { Simulation } from "./simulation.js";

/**
 * Explore seeds of the deterministic cluster simulator:
 *   node --import tsx packages/raft/test/sim/cli.ts --seeds N --seed S [--chaos-ticks T] [--heal-ticks T] [--trace K]
 * Runs seeds S..S+N-1 (S defaults to a time-based value; N to 1). A failing seed prints its trace
 * and the command that replays it, and the process exits non-zero.
 */
function flag(name: string): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) {
    console.error(`--${name} needs a non-negative integer`);
    process.exit(2);
  }
  return v;
}

const count = flag("seeds") ?? 1;
const first = flag("seed") ?? Date.now() % 1_000_000_000;
const chaosTicks = flag("chaos-ticks");
const healTicks = flag("heal-ticks");
const traceSize = flag("trace") ?? 200;

const started = performance.now();
let events = 0;
for (let seed = first; seed < first + count; seed++) {
  const res = await new Simulation({ seed, chaosTicks, healTicks, traceSize }).run();
  events += res.stats.events;
  if (!res.ok) {
    console.log(res.trace.join("\n"));
    console.log(`\nseed ${seed} FAILED: ${res.error}`);
    const extra = [
      chaosTicks === undefined ? "" : ` --chaos-ticks ${chaosTicks}`,
      healTicks === undefined ? "" : ` --heal-ticks ${healTicks}`,
    ].join("");
    console.log(
      `replay: node --import tsx packages/raft/test/sim/cli.ts --seed ${seed} --seeds 1${extra} --trace 2000`,
    );
    process.exit(1);
  }
  if (count === 1) console.log(JSON.stringify(res.stats));
}
const secs = (performance.now() - started) / 1000;
console.log(
  `${count} seeds from ${first} passed in ${secs.toFixed(1)} s (${(count / secs).toFixed(1)} seeds/s, ${Math.round(events / secs)} events/s)`,
);
