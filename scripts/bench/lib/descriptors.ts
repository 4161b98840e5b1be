// Descriptor limits for benchmarks that hold tens of thousands of connections: the limit is raised for the
// benchmark and the processes it starts (they inherit it), never by the product.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const RAISED = "CAIRN_BENCH_DESCRIPTORS_RAISED";

/** This process's soft limit on open files, from /proc (Node has no getrlimit). */
export function descriptorLimit(): number {
  const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync("/proc/self/limits", "utf8"));
  if (!line) throw new Error("cannot read the open-file limit from /proc/self/limits");
  return line[1] === "unlimited" ? Number.POSITIVE_INFINITY : Number(line[1]);
}

/**
 * Makes sure this benchmark runs with at least `needed` descriptors: below that, runs itself again under
 * bash's `ulimit -n` (raising the hard limit needs root, which the benchmark machines give) and exits with
 * that run's status. Returns only when the limit is already enough.
 */
export function ensureDescriptors(needed: number, log: (line: string) => void): void {
  const limit = descriptorLimit();
  if (limit >= needed) return;
  if (process.env[RAISED]) throw new Error(`open-file limit still ${limit} after raising it to ${needed}`);
  log(`open-file limit ${limit} < ${needed}: running again under ulimit -n ${needed}`);
  const run = spawnSync(
    "bash",
    [
      "-c",
      `ulimit -Hn ${needed} 2>/dev/null; ulimit -n ${needed} && exec "$@"`,
      "bash",
      process.execPath,
      ...process.execArgv,
      ...process.argv.slice(1),
    ],
    { stdio: "inherit", env: { ...process.env, [RAISED]: "1" } },
  );
  if (run.error) throw run.error;
  process.exit(run.status ?? 1);
}
