/**
 * What the rest of the agent sees of gossip membership: one record per member of a pool, decoded from the
 * member's tags. The membership service (this folder) produces them; the leader's reconciliation, client
 * forwarding, the members endpoints and user events consume them.
 */

/** Consul's serf member states, as `/v1/agent/members` numbers them (0..4). */
export type MemberStatus = "none" | "alive" | "leaving" | "left" | "failed";

export interface AgentMember {
  /** Node name. */
  name: string;
  /** Node ID (tag `id`); "" when a member does not carry one. */
  id: string;
  /** Gossip host and port. */
  host: string;
  port: number;
  status: MemberStatus;
  /** Raw tags as gossiped (Consul's names: role, dc, port, id, vsn, build, raft_vsn, expect, segment, ...). */
  tags: Readonly<Record<string, string>>;
  /** `server` when tag role=consul, else `client`. */
  role: "server" | "client";
  datacenter: string;
  /** Servers only: RPC (Raft) address host:port, from the gossip host and tag `port`. */
  rpcAddress?: string;
}

/** Read side of a pool, for consumers that must not start or stop it. */
export interface MembershipView {
  /** Every member this agent knows of in the LAN pool, itself included. */
  lanMembers(): AgentMember[];
  /** Alive servers of this agent's datacenter (LAN pool). */
  servers(): AgentMember[];
  /** Called after any member joins, fails, leaves, is reaped or changes tags. Returns an unsubscribe. */
  onChange(listener: (member: AgentMember) => void): () => void;
}
