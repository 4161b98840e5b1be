import type { MemberStatus } from "../../membership/types.js";

export interface DeadServerInput {
  /** The leader: never removed. */
  selfId: string;
  voters: readonly string[];
  learners: readonly string[];
  /** Gossip status of each Raft member by server ID; absent = gossip does not know it (reaped, never seen). */
  status: ReadonlyMap<string, MemberStatus>;
  /** When each server was first seen dead, as `trackDeadSince` keeps it. */
  deadSince: ReadonlyMap<string, number>;
  now: number;
  /** How long a server must stay dead before it is removed. */
  thresholdMs: number;
  /**
   * A server gossip has never listed waits at least this long: it may have joined Raft through the join
   * exchange a moment before gossip spread its record.
   */
  unknownGraceMs: number;
  /** Never leave fewer voters than this (autopilot's min_quorum; 0 = no floor). */
  minQuorum: number;
}

/** Dead: failed, left, or unknown to gossip. A server still leaving is not dead yet. */
export function isDead(status: MemberStatus | undefined): boolean {
  return status === undefined || status === "failed" || status === "left" || status === "none";
}

/**
 * Updates when each Raft member was first seen dead: a member alive (or leaving) again, or gone from the
 * configuration, is forgotten.
 */
export function trackDeadSince(
  previous: ReadonlyMap<string, number>,
  members: readonly string[],
  status: ReadonlyMap<string, MemberStatus>,
  now: number,
): Map<string, number> {
  const next = new Map<string, number>();
  for (const id of members) if (isDead(status.get(id))) next.set(id, previous.get(id) ?? now);
  return next;
}

/**
 * Which dead servers autopilot removes now (cleanup_dead_servers). Non-voters always go; voters go only while
 * the removal stays a minority of the current voters — so the rest still form a quorum of the configuration
 * they were elected under — and the voter count stays at or above min_quorum. Servers dead longest go first.
 */
export function deadServersToRemove(input: DeadServerInput): string[] {
  const ripe = (id: string) => {
    const status = input.status.get(id);
    const wait = status === undefined ? Math.max(input.thresholdMs, input.unknownGraceMs) : input.thresholdMs;
    return (
      id !== input.selfId && isDead(status) && input.now - (input.deadSince.get(id) ?? input.now) >= wait
    );
  };
  const oldestFirst = (a: string, b: string) =>
    (input.deadSince.get(a) ?? input.now) - (input.deadSince.get(b) ?? input.now);
  const removals = input.learners.filter(ripe).sort(oldestFirst);
  let voters = input.voters.length;
  let allowance = Math.floor((voters - 1) / 2);
  for (const id of input.voters.filter(ripe).sort(oldestFirst)) {
    if (allowance < 1 || voters - 1 < input.minQuorum) break;
    removals.push(id);
    voters--;
    allowance--;
  }
  return removals;
}
