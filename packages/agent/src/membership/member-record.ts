import type { AgentMemberJson } from "@cairn/api";
import type { Member } from "@cairn/gossip";
import type { AgentMember, MemberStatus } from "./types.js";

/** `host:port` split, IPv6 hosts unbracketed (as serf reports Addr). */
export function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(":");
  const host = address.slice(0, at);
  return {
    host: host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host,
    port: Number(address.slice(at + 1)),
  };
}

/** Serf's view of a memberlist state: a suspect member is still alive until proven dead. */
export function memberStatus(member: Member, localLeaving: boolean, localName: string): MemberStatus {
  if (member.name === localName && localLeaving) return "leaving";
  switch (member.state) {
    case "alive":
    case "suspect":
      return "alive";
    case "dead":
      return "failed";
    case "left":
      return "left";
  }
}

/** One gossip member decoded from its tags. */
export function agentMember(member: Member, status: MemberStatus): AgentMember {
  const { host, port } = splitAddress(member.address);
  const role = member.tags.role === "consul" ? "server" : "client";
  const record: AgentMember = {
    name: member.name,
    id: member.tags.id ?? "",
    host,
    port,
    status,
    tags: member.tags,
    role,
    datacenter: member.tags.dc ?? "",
  };
  const rpcPort = member.tags.port;
  if (role === "server" && rpcPort !== undefined && /^\d+$/.test(rpcPort)) {
    record.rpcAddress = host.includes(":") ? `[${host}]:${rpcPort}` : `${host}:${rpcPort}`;
  }
  return record;
}

/** A member as `/v1/agent/members` shows it. */
export type ConsulMember = AgentMemberJson;

const STATUS_CODES: Record<MemberStatus, number> = { none: 0, alive: 1, leaving: 2, left: 3, failed: 4 };

/** memberlist protocol 1..5 speaking 2, serf protocol 2..5 speaking 4: what Consul 1.15 reports. */
export function consulMember(member: AgentMember): ConsulMember {
  return {
    Name: member.name,
    Addr: member.host,
    Port: member.port,
    Tags: { ...member.tags },
    Status: STATUS_CODES[member.status],
    ProtocolMin: 1,
    ProtocolMax: 5,
    ProtocolCur: 2,
    DelegateMin: 2,
    DelegateMax: 5,
    DelegateCur: 4,
  };
}
