import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * What the membership service keeps across restarts (Serf's snapshot, reduced to what is replayed): the
 * addresses of the members last seen alive, per pool, and whether this agent left gracefully. After a leave
 * the addresses are dropped, so a restart rejoins nobody until an explicit join (or retry_join) finds peers.
 */
export interface RememberedPeers {
  left: boolean;
  lan: string[];
  wan: string[];
}

const FILE = "membership.json";

export function emptyPeers(): RememberedPeers {
  return { left: false, lan: [], wan: [] };
}

/** The stored state of `dir`, or the empty one when there is none or it cannot be read. */
export function readPeers(dir: string): RememberedPeers {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(dir, FILE), "utf8"));
  } catch {
    return emptyPeers();
  }
  if (typeof parsed !== "object" || parsed === null) return emptyPeers();
  const o = parsed as Record<string, unknown>;
  const strings = (v: unknown) =>
    Array.isArray(v) ? v.filter((a): a is string => typeof a === "string") : [];
  return { left: o.left === true, lan: strings(o.lan), wan: strings(o.wan) };
}

/** Replaces the stored state atomically (write then rename), so a crash never leaves half a file. */
export function writePeers(dir: string, peers: RememberedPeers): void {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `${FILE}.tmp`);
  writeFileSync(tmp, JSON.stringify(peers));
  renameSync(tmp, join(dir, FILE));
}
