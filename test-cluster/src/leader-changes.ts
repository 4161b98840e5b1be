// Leader changes as the servers log them ("raft leadership changed ... role=leader": one line per election
// won or transfer received), each attributed to the fault window it fell in, if any. A change outside every
// window is unprovoked: an election no fault caused (a stall or a slow host that looked like a dead leader).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface FaultWindow {
  readonly cause: string;
  /** Harness times (ms since the run started). */
  readonly from: number;
  readonly to: number;
}

export interface LeaderChange {
  /** Harness time of the log line. */
  readonly t: number;
  readonly server: string;
  /** The fault window it fell in; undefined when unprovoked. */
  readonly cause: string | undefined;
}

const BECAME_LEADER = /^(\S+) .*raft leadership changed: .*role=leader\b/;

/** Every leader change in the servers' logs (`<logRoot>/<name>.log`), oldest first. */
export function leaderChanges(
  logRoot: string,
  servers: readonly string[],
  startedAtWallMs: number,
  windows: readonly FaultWindow[],
): LeaderChange[] {
  const changes: LeaderChange[] = [];
  for (const server of servers) {
    const file = join(logRoot, `${server}.log`);
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const m = BECAME_LEADER.exec(line);
      if (!m) continue;
      const wall = Date.parse(m[1]!);
      if (Number.isNaN(wall)) continue;
      const t = wall - startedAtWallMs;
      const window = windows.find((w) => t >= w.from && t <= w.to);
      changes.push({ t, server, cause: window?.cause });
    }
  }
  return changes.sort((a, b) => a.t - b.t);
}
