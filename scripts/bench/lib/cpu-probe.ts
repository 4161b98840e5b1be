// How fast the machine's CPU is right now, for long benchmarks on shared virtual machines: the CPU time this
// process needs for the same fixed work. A neighbour on the host's other hyperthread, a lower clock or a busier
// memory bus make the same work cost more CPU time, which the guest's steal counter does not show. Time spent
// waiting for a core is not counted, so a busy guest does not inflate it.

/** CPU milliseconds the fixed work took: integer arithmetic, and dependent reads that miss the caches. */
export interface CpuProbe {
  alu: number;
  memory: number;
}

// A 16 MiB random cycle, larger than the caches, so the probe feels memory contention as a server does.
const SLOTS = 1 << 22;
let cycle: Uint32Array | undefined;

function buildCycle(): Uint32Array {
  const order = new Uint32Array(SLOTS);
  for (let i = 0; i < SLOTS; i++) order[i] = i;
  let seed = 0x9e3779b9;
  for (let i = SLOTS - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    const j = seed % (i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  const next = new Uint32Array(SLOTS);
  for (let i = 0; i < SLOTS; i++) next[order[i]!] = order[(i + 1) % SLOTS]!;
  return next;
}

/**
 * process.cpuUsage has microsecond resolution (the main thread's schedstat is only tick-precise here). It also
 * counts the process's other threads, so a collector's concurrent marking can inflate one reading: the probe
 * takes the lower of two.
 */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function once(): CpuProbe {
  cycle ??= buildCycle();
  const next = cycle;
  let t = cpuMs();
  let mix = 1;
  for (let i = 0; i < 5_000_000; i++) mix = Math.imul(mix ^ (mix >>> 13), 0x5bd1e995) + i;
  const alu = cpuMs() - t;
  t = cpuMs();
  let at = 0;
  for (let i = 0; i < 250_000; i++) at = next[at]!;
  const memory = cpuMs() - t;
  // Use the results so the compiler cannot drop either loop; allocation-free, so no collection runs inside.
  if (at === SLOTS && mix === 0.5) console.error("probe");
  return { alu, memory };
}

/** About 160 ms of CPU; both loops take about 40 ms each on an idle 2.6 GHz EPYC guest. */
export function probeCpu(): CpuProbe {
  const a = once();
  const b = once();
  return { alu: Math.min(a.alu, b.alu), memory: Math.min(a.memory, b.memory) };
}
