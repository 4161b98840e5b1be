import type { AgentMember, MemberStatus } from "../../membership/types.js";

/**
 * Server members of the LAN pool by Raft ID: the member's `id` tag, or (for a member gossiping no ID) the
 * Raft ID the catalog gives its node name.
 */
export function serverMembers(
  members: readonly AgentMember[],
  serverNames: ReadonlyMap<string, string>,
): Map<string, AgentMember> {
  const idOfName = new Map<string, string>();
  for (const [id, name] of serverNames) idOfName.set(name, id);
  const out = new Map<string, AgentMember>();
  for (const m of members) {
    if (m.role !== "server") continue;
    const id = m.id || idOfName.get(m.name);
    if (id !== undefined) out.set(id, m);
  }
  return out;
}

/** Gossip status of each server by Raft ID. */
export function serverStatuses(
  members: readonly AgentMember[],
  serverNames: ReadonlyMap<string, string>,
): Map<string, MemberStatus> {
  const out = new Map<string, MemberStatus>();
  for (const [id, m] of serverMembers(members, serverNames)) out.set(id, m.status);
  return out;
}
