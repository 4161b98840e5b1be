import type { AgentMember, MemberStatus } from "../../../src/membership/types.js";
import type { ServerMembership } from "../../../src/server/server.js";

/** A LAN pool the test drives: set members, change their status, and the listeners hear of it. */
export class DrivenMembership implements ServerMembership {
  private readonly members = new Map<string, AgentMember>();
  private readonly listeners = new Set<(member: AgentMember) => void>();

  /** Where this agent's gossip (and the servers' join exchange on it) would listen; nothing does here. */
  constructor(readonly lanAddress = "127.0.0.1:0") {}

  lanMembers(): AgentMember[] {
    return [...this.members.values()];
  }

  servers(): AgentMember[] {
    return this.lanMembers().filter((m) => m.role === "server" && m.status === "alive");
  }

  /** Addresses the server asked to join; the test decides who becomes a member. */
  readonly joined: string[] = [];

  async join(addresses: string[]): Promise<number> {
    this.joined.push(...addresses);
    return addresses.length;
  }

  onChange(listener: (member: AgentMember) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  set(member: AgentMember): void {
    this.members.set(member.name, member);
    for (const l of this.listeners) l(member);
  }

  status(name: string, status: MemberStatus): void {
    const member = this.members.get(name);
    if (!member) throw new Error(`no member ${name}`);
    this.set({ ...member, status });
  }

  /** Gone from the pool altogether (serf's reap). */
  reap(name: string): void {
    const member = this.members.get(name);
    if (!member) return;
    this.members.delete(name);
    for (const l of this.listeners) l({ ...member, status: "left" });
  }
}

export function client(name: string, host: string, extra: Partial<AgentMember> = {}): AgentMember {
  return {
    name,
    id: `id-${name}`,
    host,
    port: 8301,
    status: "alive",
    tags: { role: "node", dc: "dc1", id: `id-${name}` },
    role: "client",
    datacenter: "dc1",
    ...extra,
  };
}

export function server(name: string, host: string, extra: Partial<AgentMember> = {}): AgentMember {
  return {
    ...client(name, host),
    tags: { role: "consul", dc: "dc1", id: `id-${name}`, port: "8300", build: "1.15.0:cairn" },
    role: "server",
    rpcAddress: `${host}:8300`,
    ...extra,
  };
}
