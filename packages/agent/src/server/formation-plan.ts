import type { ServerInfo } from "./join/protocol.js";

export type FormationPlan =
  /** Not enough servers known yet. */
  | { kind: "wait"; known: number }
  /** Start Raft with this first configuration (id -> server address). */
  | { kind: "bootstrap"; voters: Record<string, string> }
  /** A cluster exists: start Raft empty and ask to be added. */
  | { kind: "join" };

/**
 * bootstrap_expect as Consul runs it: once `expect` servers (this one included) know of each other and none
 * has Raft state, each bootstraps with the same set — every server sorts the same ids, so they may do it
 * concurrently and their first log entries agree. A server that sees any peer with state joins it instead
 * (that includes a bootstrap peer that got there first, whose configuration already names this server).
 */
export function planFormation(self: ServerInfo, expect: number, peers: readonly ServerInfo[]): FormationPlan {
  const others = peers.filter((p) => p.id !== self.id && p.datacenter === self.datacenter);
  if (others.some((p) => p.hasState)) return { kind: "join" };
  const all = [self, ...others];
  if (all.length < expect) return { kind: "wait", known: all.length };
  const sorted = all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { kind: "bootstrap", voters: Object.fromEntries(sorted.map((s) => [s.id, s.rpcAddress])) };
}
