import { type CatalogNode, COMMAND_VERSION, type Command, type StateView } from "@cairn/fsm";
import { PRIMARY_DC_TAG } from "../../membership/tags.js";
import type { AgentMember } from "../../membership/types.js";
import {
  defaultTaggedAddresses,
  SERF_HEALTH_CHECK,
  serfHealthCheck,
  serverService,
} from "../self-registration.js";

/** The Raft configuration as reconciliation sees it: who votes, who learns, and where each one listens. */
export interface RaftMembership {
  voters: readonly string[];
  learners: readonly string[];
  address(id: string): string | undefined;
}

/** One change that brings the catalog or the Raft configuration in line with gossip membership. */
export type ReconcileStep =
  | { kind: "catalog"; node: string; reason: "alive" | "failed" | "left" | "reaped"; command: Command }
  | { kind: "raft-join"; id: string; address: string }
  | { kind: "raft-remove"; id: string; reason: string };

/** The leader as reconciliation sees it. */
export interface ReconcileSelf {
  name: string;
  id: string;
  datacenter: string;
  /** Servers gossiping another primary datacenter stay out of Raft (see `PRIMARY_DC_TAG`). */
  primaryDatacenter: string;
}

export interface ReconcileInput {
  /** The leader itself: never marked failed, never deregistered; its own entry is self-registration's. */
  self: ReconcileSelf;
  /** Whom to look at: every LAN member on a full pass, the changed ones on an event. */
  members: readonly AgentMember[];
  /** On a full pass: the names of every LAN member, so catalog nodes of members gone from gossip are reaped. */
  known?: ReadonlySet<string>;
  view: StateView;
  /** Undefined while this server has no Raft configuration yet. */
  raft: RaftMembership | undefined;
  now: number;
}

/**
 * What the leader must write so the catalog and the Raft peer set agree with gossip, as Consul's leader
 * reconciles serf members: alive members registered with a passing serfHealth check (servers with their
 * `consul` service, and added to Raft as non-voters), failed members' serfHealth critical, left members
 * deregistered (servers also removed from Raft), and catalog nodes that carry serfHealth but are no longer
 * members at all deregistered. Only differences produce steps, so an agreeing catalog costs no writes.
 */
export function planReconcile(input: ReconcileInput): ReconcileStep[] {
  const steps: ReconcileStep[] = [];
  for (const member of input.members) {
    if (member.datacenter !== input.self.datacenter || member.name === input.self.name) continue;
    switch (member.status) {
      case "alive":
        steps.push(...aliveSteps(input, member));
        break;
      case "failed":
        steps.push(...failedSteps(input, member));
        break;
      case "left":
        steps.push(...goneSteps(input, member.name, "left", member.role === "server" ? member.id : ""));
        break;
      default:
        // leaving / none: wait for the final state.
        break;
    }
  }
  if (input.known) steps.push(...reapedSteps(input, input.known));
  return steps;
}

function aliveSteps(input: ReconcileInput, member: AgentMember): ReconcileStep[] {
  const steps: ReconcileStep[] = [];
  const serverPort = member.role === "server" ? rpcPort(member) : undefined;
  if (member.role === "server") steps.push(...raftJoinSteps(input.raft, member, input.self));
  const current = input.view.node(member.name).value;
  if (current && isAliveEntry(input.view, current, member, serverPort)) return steps;
  const node = current?.node;
  steps.push({
    kind: "catalog",
    node: member.name,
    reason: "alive",
    command: {
      v: COMMAND_VERSION,
      type: "catalog.register",
      registration: {
        ...(member.id ? { ID: member.id } : {}),
        Node: member.name,
        Address: member.host,
        Datacenter: member.datacenter,
        // What the agent itself registered (tagged addresses, node meta) stays; only a new node gets defaults.
        TaggedAddresses: node ? node.TaggedAddresses : defaultTaggedAddresses(member.host),
        NodeMeta: node ? node.Meta : {},
        ...(serverPort === undefined ? {} : { Service: serverService(serverPort) }),
        Checks: [serfHealthCheck(member.name, "passing")],
      },
      now: input.now,
    },
  });
  return steps;
}

/** The same test self-registration's `isRegistered` makes, for any member. */
function isAliveEntry(
  view: StateView,
  current: { node: CatalogNode; services: readonly { ID: string; Port: number }[] },
  member: AgentMember,
  serverPort: number | undefined,
): boolean {
  if (current.node.Address !== member.host) return false;
  if (member.id && current.node.ID !== member.id) return false;
  if (serverPort !== undefined && !current.services.some((s) => s.ID === "consul" && s.Port === serverPort))
    return false;
  return serfStatus(view, member.name) === "passing";
}

function failedSteps(input: ReconcileInput, member: AgentMember): ReconcileStep[] {
  const node = input.view.node(member.name).value?.node;
  if (node && node.Address === member.host && serfStatus(input.view, member.name) === "critical") return [];
  return [
    {
      kind: "catalog",
      node: member.name,
      reason: "failed",
      command: {
        v: COMMAND_VERSION,
        type: "catalog.register",
        registration: {
          ...(member.id ? { ID: member.id } : {}),
          Node: member.name,
          Address: member.host,
          Datacenter: member.datacenter,
          // A failed member's own registration (addresses, meta, services) is kept as it was.
          SkipNodeUpdate: true,
          Checks: [serfHealthCheck(member.name, "critical")],
        },
        now: input.now,
      },
    },
  ];
}

/** A member that left or was reaped: out of Raft when it was a server, then out of the catalog. */
function goneSteps(
  input: ReconcileInput,
  name: string,
  reason: "left" | "reaped",
  serverId: string,
): ReconcileStep[] {
  const steps: ReconcileStep[] = [];
  const raft = input.raft;
  if (serverId && serverId !== input.self.id && raft && inConfiguration(raft, serverId))
    steps.push({ kind: "raft-remove", id: serverId, reason: `server ${name} ${reason}` });
  if (input.view.node(name).value)
    steps.push({
      kind: "catalog",
      node: name,
      reason,
      command: { v: COMMAND_VERSION, type: "catalog.deregister", node: name, now: input.now },
    });
  return steps;
}

/** Catalog nodes the leader once reconciled (they carry serfHealth) whose member is gone from gossip. */
function reapedSteps(input: ReconcileInput, known: ReadonlySet<string>): ReconcileStep[] {
  const steps: ReconcileStep[] = [];
  for (const node of absentNodes(input.view, known, input.self.name)) {
    const entry = input.view.node(node).value;
    const wasServer = entry?.services.some((s) => s.ID === "consul") ?? false;
    steps.push(...goneSteps(input, node, "reaped", wasServer ? (entry?.node.ID ?? "") : ""));
  }
  return steps;
}

/** Catalog nodes carrying serfHealth (so once reconciled from gossip) that are not among `known`. */
export function absentNodes(view: StateView, known: ReadonlySet<string>, self: string): string[] {
  return view
    .nodes()
    .value.filter((n) => !known.has(n.Node) && n.Node !== self && serfStatus(view, n.Node) !== undefined)
    .map((n) => n.Node);
}

/**
 * An alive server of this datacenter missing from Raft joins as a non-voter (learner promotion makes it a
 * voter once stable). A stale entry at the same address under another ID (the server's data was wiped) goes
 * first, as Consul's leader does, so the two never count towards quorum together. A server that names another
 * primary datacenter stays out: its join refusal (the hello exchange) must not lose a race with this.
 */
function raftJoinSteps(
  raft: RaftMembership | undefined,
  member: AgentMember,
  self: ReconcileSelf,
): ReconcileStep[] {
  if (!raft || !member.id || !member.rpcAddress || inConfiguration(raft, member.id)) return [];
  const primary = member.tags[PRIMARY_DC_TAG];
  if (primary !== undefined && primary !== self.primaryDatacenter) return [];
  const address = member.rpcAddress;
  const stale = [...raft.voters, ...raft.learners].filter((id) => raft.address(id) === address);
  return [
    ...stale.map(
      (id): ReconcileStep => ({
        kind: "raft-remove",
        id,
        reason: `server ${member.name} now answers at ${address} as ${member.id}`,
      }),
    ),
    { kind: "raft-join", id: member.id, address },
  ];
}

function inConfiguration(raft: RaftMembership, id: string): boolean {
  return raft.voters.includes(id) || raft.learners.includes(id);
}

function serfStatus(view: StateView, node: string): string | undefined {
  return view.checksForNode(node).value.find((c) => c.CheckID === SERF_HEALTH_CHECK)?.Status;
}

/** A server's RPC port, from its `port` tag (what its rpcAddress carries too). */
function rpcPort(member: AgentMember): number | undefined {
  const port = Number(member.tags.port);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}
