// Benchmarks measure what ships: the image and the systemd unit run the compiled `packages/<name>/dist` with
// plain node, not the sources through tsx (whose transform, for one, names every closure it creates with
// a defineProperty call: 2.7% of a leader's CPU under 256 writers, in reading request bodies alone).
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { REPO_ROOT } from "../../lib/agent.js";

/**
 * Compiles the tree (`tsc -b`, incremental: a second call costs seconds) and makes every agent spawned
 * from here on, by this process or its children, run the build. `CAIRN_AGENT_BUILT=0` keeps the sources.
 */
export function useBuiltAgents(log: (line: string) => void = (line) => console.error(line)): void {
  if (process.env.CAIRN_AGENT_BUILT === "0") return;
  if (process.env.CAIRN_AGENT_BUILT !== "1") log("compiling the agent (tsc -b tsconfig.build.json)");
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: REPO_ROOT, stdio: "inherit" });
  process.env.CAIRN_AGENT_BUILT = "1";
}
