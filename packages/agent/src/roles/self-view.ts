import { formatDuration } from "@cairn/duration";
import type { AgentConfig } from "../config/index.js";
import type { SelfView } from "../local/self.js";
import { serfSection } from "../local/self-stats.js";
import type { AgentMembership } from "../membership/index.js";
import type { CairnServer } from "../server/server.js";

const RAFT_STATE = {
  leader: "Leader",
  follower: "Follower",
  candidate: "Candidate",
  "pre-candidate": "Candidate",
};

function ownMember(config: AgentConfig, membership: AgentMembership) {
  return membership.members({ wan: false }).find((m) => m.Name === config.nodeName);
}

function aclState(config: AgentConfig): string {
  return config.acl.enabled ? "enabled" : "disabled";
}

function serfLan(config: AgentConfig, membership: AgentMembership): Record<string, string> {
  return serfSection(
    membership.members({ wan: false }),
    membership.stats().lan,
    config.encrypt !== undefined,
  );
}

/** A server's `/v1/agent/self` view: its gossip member, and Stats for consul, raft and both gossip pools. */
export function serverSelfView(
  config: AgentConfig,
  membership: AgentMembership,
  server: () => CairnServer | undefined,
): SelfView {
  return {
    member: () => ownMember(config, membership),
    stats: () => {
      const srv = server();
      const node = srv?.raft;
      const leaderId = node?.leaderId() ?? null;
      const leaderAddr = leaderId === null ? "" : (node?.addressOf(leaderId) ?? "");
      const wan = membership.stats().wan;
      return {
        consul: {
          acl: aclState(config),
          bootstrap: String(config.bootstrap),
          known_datacenters: String(membership.datacenters().length),
          leader: String(node?.isLeader() ?? false),
          leader_addr: node?.isLeader() ? (srv?.serverAddress ?? leaderAddr) : leaderAddr,
          server: "true",
        },
        ...(srv && node ? { raft: raftSection(config, srv) } : {}),
        serf_lan: serfLan(config, membership),
        ...(wan
          ? { serf_wan: serfSection(membership.members({ wan: true }), wan, config.encrypt !== undefined) }
          : {}),
      };
    },
  };
}

/** Consul's `raft` section of Stats, from this server's Raft node. */
function raftSection(config: AgentConfig, server: CairnServer): Record<string, string> {
  const node = server.raft!;
  const status = node.status();
  const leader = node.isLeader();
  const contact = server.backend.contactHeaders();
  const servers = [
    ...status.conf.voters.map((id) => ({ id, suffrage: "Voter" })),
    ...status.conf.learners.map((id) => ({ id, suffrage: "Nonvoter" })),
  ].map(
    ({ id, suffrage }) =>
      `{Suffrage:${suffrage} ID:${id} Address:${id === status.id ? server.serverAddress : (node.addressOf(id) ?? "")}}`,
  );
  return {
    applied_index: String(status.applied),
    commit_index: String(status.commit),
    fsm_pending: "0",
    last_contact: leader
      ? "0"
      : contact.knownLeader
        ? formatDuration(BigInt(Math.round(contact.lastContactMs * 1e6)))
        : "never",
    last_log_index: String(status.lastIndex),
    last_snapshot_index: String(status.snapshotIndex),
    latest_configuration: `[${servers.join(" ")}]`,
    latest_configuration_index: "0",
    num_peers: String(status.conf.voters.filter((id) => id !== status.id).length),
    protocol_version: String(config.raftProtocol),
    protocol_version_max: "3",
    protocol_version_min: "0",
    snapshot_version_max: "1",
    snapshot_version_min: "0",
    state: RAFT_STATE[status.role],
    term: String(status.term),
  };
}

/** A client's `/v1/agent/self` view: its gossip member, and Stats for consul and the LAN pool. */
export function clientSelfView(config: AgentConfig, membership: AgentMembership): SelfView {
  return {
    member: () => ownMember(config, membership),
    stats: () => ({
      consul: {
        acl: aclState(config),
        known_servers: String(membership.servers().length),
        server: "false",
      },
      serf_lan: serfLan(config, membership),
    }),
  };
}
