/**
 * The join exchange servers use to find each other before (and until) gossip exists: a request and one answer
 * as JSON over a WebSocket on the LAN serf port. Gossip will take this port over and feed the same formation
 * logic with the same facts.
 */
export const JOIN_PATH = "/cairn/join";

/** What a server tells others about itself. */
export interface ServerInfo {
  id: string;
  name: string;
  datacenter: string;
  /**
   * `primary_datacenter`; every server of a datacenter must name the same one. Absent from servers that
   * predate federation (nothing to compare).
   */
  primaryDatacenter?: string;
  /** Server RPC (Raft) address. */
  rpcAddress: string;
  /** Where this join service listens (host:port). */
  joinAddress: string;
  /** Whether its Raft log holds anything: a formed cluster, or at least a configuration. */
  hasState: boolean;
  /** Voters of its Raft configuration, id -> server address (empty without state). */
  voters: Record<string, string>;
  /** Id of the leader it knows, if any. */
  leader: string | null;
}

export type JoinRequest =
  | { op: "hello"; from: ServerInfo }
  /** Ask the cluster to add a server as a non-voter; any member forwards it to the leader. */
  | { op: "join"; id: string; address: string };

export type JoinAnswer =
  | { ok: true; info: ServerInfo; known: string[] }
  | { ok: true; joined: true }
  | { ok: false; error: string };

export function isServerInfo(v: unknown): v is ServerInfo {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.id === "string" &&
    typeof o.name === "string" &&
    typeof o.datacenter === "string" &&
    (o.primaryDatacenter === undefined || typeof o.primaryDatacenter === "string") &&
    typeof o.rpcAddress === "string" &&
    typeof o.joinAddress === "string" &&
    typeof o.hasState === "boolean" &&
    typeof o.voters === "object" &&
    o.voters !== null &&
    (o.leader === null || typeof o.leader === "string")
  );
}

export function parseJoinRequest(text: string): JoinRequest | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (o.op === "hello" && isServerInfo(o.from)) return { op: "hello", from: o.from };
  if (o.op === "join" && typeof o.id === "string" && typeof o.address === "string")
    return { op: "join", id: o.id, address: o.address };
  return undefined;
}

/** `host` or `host:port` (IPv6 in brackets) with the default port filled in. */
export function withDefaultPort(address: string, port: number): string {
  const trimmed = address.trim();
  if (trimmed.startsWith("[")) return trimmed.includes("]:") ? trimmed : `${trimmed}:${port}`;
  const colons = trimmed.split(":").length - 1;
  if (colons === 0) return `${trimmed}:${port}`;
  if (colons > 1) return `[${trimmed}]:${port}`; // a bare IPv6 address
  return trimmed;
}

/**
 * Why a server of this datacenter cannot work with `peer`: they name different primary datacenters, so
 * they would disagree on which ACLs and config entries are authoritative. Undefined when they agree.
 */
export function primaryMismatch(self: ServerInfo, peer: ServerInfo): string | undefined {
  if (peer.datacenter !== self.datacenter) return undefined;
  if (peer.primaryDatacenter === undefined || self.primaryDatacenter === undefined) return undefined;
  if (peer.primaryDatacenter === self.primaryDatacenter) return undefined;
  return (
    `primary_datacenter: this server has ${JSON.stringify(self.primaryDatacenter)} but server ` +
    `${JSON.stringify(peer.name)} of datacenter ${JSON.stringify(self.datacenter)} has ` +
    `${JSON.stringify(peer.primaryDatacenter)}; every server must name the same primary datacenter`
  );
}

/**
 * Which side gives up on a primary_datacenter mismatch: the newcomer, a server not yet part of a formed
 * cluster (no leader known, not a voter). A formed cluster's member keeps running and ignores the other.
 */
export function isNewcomer(self: ServerInfo): boolean {
  return self.leader === null && !Object.hasOwn(self.voters, self.id);
}
