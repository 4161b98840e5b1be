import type { MemberStatus } from "../../membership/types.js";

/** What the leader knows of one server at one moment. */
export interface ServerObservation {
  id: string;
  name: string;
  address: string;
  serfStatus: MemberStatus;
  version: string;
  leader: boolean;
  voter: boolean;
  /** Time since the leader last heard from it (0 for the leader). */
  lastContactMs: number;
  /** The term it was last seen following the leader in; 0 when never. */
  lastTerm: number;
  lastIndex: number;
}

export interface HealthThresholds {
  lastContactThresholdMs: number;
  maxTrailingLogs: number;
}

/**
 * Autopilot's health rule: gossip says alive, the leader heard from it within last_contact_threshold, it
 * follows the leader's current term, and its log trails the leader's by at most max_trailing_logs.
 */
export function isServerHealthy(
  server: ServerObservation,
  leader: { term: number; lastIndex: number },
  thresholds: HealthThresholds,
): boolean {
  if (server.serfStatus !== "alive") return false;
  if (server.leader) return true;
  if (server.lastContactMs < 0 || server.lastContactMs > thresholds.lastContactThresholdMs) return false;
  if (server.lastTerm !== leader.term) return false;
  return leader.lastIndex - server.lastIndex <= thresholds.maxTrailingLogs;
}

/** How many voters can fail with the cluster still electing a leader: healthy voters beyond a quorum. */
export function failureTolerance(servers: readonly { voter: boolean; healthy: boolean }[]): number {
  const voters = servers.filter((s) => s.voter);
  const healthy = voters.filter((s) => s.healthy).length;
  return Math.max(0, healthy - (Math.floor(voters.length / 2) + 1));
}
