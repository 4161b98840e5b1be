import type { Coord, StateStore } from "@cairn/fsm";
import type { AgentConfig } from "../config/index.js";
import { consulMember } from "../membership/member-record.js";
import { agentTags } from "../membership/tags.js";
import { agentNodeMeta } from "./node-meta.js";
import type { NodeIdentity } from "./sync-plan.js";

/** The Consul release whose HTTP API Cairn speaks; clients gate features on Config.Version. */
export const CONSUL_API_VERSION = "1.15.0";

const ORIGIN = { Vec: [0, 0, 0, 0, 0, 0, 0, 0], Error: 1.5, Adjustment: 0, Height: 1e-5 };

/**
 * `/v1/agent/self`: Config (the stable subset), DebugConfig (the runtime configuration with every secret
 * left out), the node's coordinate, its gossip member entry and its metadata.
 */
export function agentSelf(
  config: AgentConfig,
  node: NodeIdentity,
  coordinate: Coord | undefined,
): Record<string, unknown> {
  return {
    Config: {
      Datacenter: config.datacenter,
      PrimaryDatacenter: config.primaryDatacenter,
      NodeName: node.name,
      NodeID: node.id,
      Server: config.server,
      Revision: "cairn",
      Version: CONSUL_API_VERSION,
    },
    DebugConfig: debugConfig(config),
    Coord: coordinate
      ? {
          Vec: [...coordinate.Vec],
          Error: coordinate.Error,
          Adjustment: coordinate.Adjustment,
          Height: coordinate.Height,
        }
      : ORIGIN,
    Member: consulMember({
      name: node.name,
      id: node.id,
      host: node.address,
      port: config.ports.serfLan,
      status: "alive",
      // As gossiped: a client has no RPC port or Raft tags.
      tags: agentTags({
        config,
        nodeId: node.id,
        ...(config.server ? { serverPort: config.ports.server } : {}),
        wan: false,
      }),
      role: config.server ? "server" : "client",
      datacenter: config.datacenter,
    }),
    Meta: agentNodeMeta(config.nodeMeta),
  };
}

/** A server's network coordinate as its catalog replica holds it (a client's comes from gossip). */
export function storeCoordinate(store: StateStore, node: string): Coord | undefined {
  return store.view().coordinates(node).value[0]?.Coord;
}

/** A service or check definition with its ACL token (if any) hidden. */
function hideToken(def: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(def)) out[k] = k.toLowerCase() === "token" ? "hidden" : v;
  return out;
}

/** The configuration without its secrets: ACL tokens and the gossip key are never shown. */
function debugConfig(config: AgentConfig): Record<string, unknown> {
  const { acl, encrypt, services, checks, ...rest } = config;
  const { tokens, ...aclRest } = acl;
  return {
    ...rest,
    services: services.map(hideToken),
    checks: checks.map(hideToken),
    acl: { ...aclRest, tokens: Object.fromEntries(Object.keys(tokens).map((k) => [k, "hidden"])) },
    encrypt: encrypt === undefined ? "" : "hidden",
  };
}
