import type { AgentConfig } from "../config/index.js";
import { CONSUL_API_VERSION } from "../local/version.js";

export interface TagInputs {
  config: AgentConfig;
  nodeId: string;
  /** Servers only: the RPC port. */
  serverPort?: number;
  /** LAN pool of a server with a WAN pool: the WAN port, so servers can join each other's WAN pool. */
  wanJoinPort?: number;
  wan: boolean;
}

/**
 * Cairn's own server tag: the server's primary_datacenter. A leader does not add a server of its datacenter
 * that names another one to Raft (Consul has no such tag; its tools ignore tags they do not know).
 */
export const PRIMARY_DC_TAG = "primary_dc";

/**
 * The tags an agent gossips, named as Consul's: role (consul|node), dc, segment, id, protocol versions and
 * build; servers add port (RPC), raft_vsn, bootstrap/expect, primary_dc and, on the LAN, wan_join_port.
 */
export function agentTags(inputs: TagInputs): Record<string, string> {
  const { config, nodeId, serverPort, wanJoinPort, wan } = inputs;
  const server = serverPort !== undefined;
  const tags: Record<string, string> = {
    role: server ? "consul" : "node",
    dc: config.datacenter,
    id: nodeId,
    vsn: "2",
    vsn_min: "2",
    vsn_max: "3",
    build: `${CONSUL_API_VERSION}:cairn`,
    ft_fs: "1",
    ft_si: "1",
  };
  if (!wan) tags.segment = "";
  if (!server) return tags;
  tags.port = String(serverPort);
  tags.raft_vsn = String(config.raftProtocol);
  tags[PRIMARY_DC_TAG] = config.primaryDatacenter;
  if (config.bootstrap) tags.bootstrap = "1";
  if (config.bootstrapExpect > 0) tags.expect = String(config.bootstrapExpect);
  if (!wan && wanJoinPort !== undefined) tags.wan_join_port = String(wanJoinPort);
  return tags;
}
