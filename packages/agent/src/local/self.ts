import type { AgentMemberJson, LocalCheck, StateReader } from "@cairn/api";
import type { Coord } from "@cairn/fsm";
import type { AgentConfig } from "../config/index.js";
import { consulMember } from "../membership/member-record.js";
import { agentTags } from "../membership/tags.js";
import { debugConfig } from "./debug-config.js";
import { agentNodeMeta } from "./node-meta.js";
import { type AgentStats, agentSection, buildSection, runtimeSection } from "./self-stats.js";
import type { NodeIdentity } from "./sync-plan.js";
import { CONSUL_API_VERSION } from "./version.js";

export { CONSUL_API_VERSION };

const ORIGIN = { Vec: [0, 0, 0, 0, 0, 0, 0, 0], Error: 1.5, Adjustment: 0, Height: 1e-5 };

/** What the agent's role (server or client) knows for `/v1/agent/self` beyond the configuration. */
export interface SelfView {
  /** This agent's own entry of `/v1/agent/members`, as its LAN gossip pool has it. */
  member(): AgentMemberJson | undefined;
  /** The role's Stats sections: `consul`, and `raft` and `serf_wan` on a server, `serf_lan`. */
  stats(): AgentStats;
}

export interface SelfInputs {
  config: AgentConfig;
  node: NodeIdentity;
  coordinate: Coord | undefined;
  services: number;
  checks: readonly LocalCheck[];
  view: SelfView | undefined;
}

/**
 * `/v1/agent/self` in Consul's shape: Config (the stable subset), DebugConfig (the runtime configuration
 * under Consul's names, secrets hidden), Coord, Member (the same record `/v1/agent/members` lists for this
 * agent), Stats and Meta. xDS is absent: Cairn serves no Envoy configuration.
 */
export function agentSelf(s: SelfInputs): Record<string, unknown> {
  const { config, node, coordinate } = s;
  const member = s.view?.member() ?? gossipedMember(config, node);
  return {
    Config: {
      Datacenter: config.datacenter,
      PrimaryDatacenter: config.primaryDatacenter,
      NodeName: node.name,
      NodeID: node.id,
      Server: config.server,
      Revision: "cairn",
      Version: CONSUL_API_VERSION,
      // Consul listed it here until 1.0; Patroni still reads Config.SessionTTLMin (nanoseconds) to lower its
      // session TTL after an `Invalid Session TTL` refusal.
      SessionTTLMin: config.sessionTtlMinMs * 1e6,
    },
    DebugConfig: debugConfig(config, {
      nodeId: node.id,
      advertiseAddr: node.address,
      serfPortLan: member.Port,
      taggedAddresses: node.taggedAddresses,
    }),
    Coord: coordinate
      ? {
          Vec: [...coordinate.Vec],
          Error: coordinate.Error,
          Adjustment: coordinate.Adjustment,
          Height: coordinate.Height,
        }
      : ORIGIN,
    Member: member,
    Stats: {
      agent: agentSection(s.services, s.checks),
      build: buildSection(),
      runtime: runtimeSection(),
      ...s.view?.stats(),
    },
    Meta: agentNodeMeta(config.nodeMeta),
  };
}

/** The member record as this agent gossips it, for when the pool cannot say (not started, or stopping). */
function gossipedMember(config: AgentConfig, node: NodeIdentity): AgentMemberJson {
  return consulMember({
    name: node.name,
    id: node.id,
    host: node.address,
    port: config.ports.serfLan,
    status: "alive",
    tags: agentTags({
      config,
      nodeId: node.id,
      ...(config.server ? { serverPort: config.ports.server } : {}),
      ...(config.server && config.ports.serfWan >= 0 ? { wanJoinPort: config.ports.serfWan } : {}),
      wan: false,
    }),
    role: config.server ? "server" : "client",
    datacenter: config.datacenter,
  });
}

/** A server's network coordinate as its catalog replica holds it (a client's comes from gossip). */
export function storeCoordinate(store: StateReader, node: string): Coord | undefined {
  return store.view().coordinates(node).value[0]?.Coord;
}
