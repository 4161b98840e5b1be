import {
  type RaftConfigurationView,
  type RaftOperator,
  RaftOperatorError,
  type RaftServerView,
} from "@cairn/api";
import type { ApplyResult, AutopilotConfigSpec } from "@cairn/fsm";
import { RaftRejectedError, RpcError, type ServerRaftNode } from "@cairn/raft";
import type { AutopilotSettings } from "../config/index.js";
import type { MembershipView } from "../membership/types.js";
import type { ServerRpc } from "../server-rpc/server-rpc.js";
import { Autopilot } from "./autopilot/autopilot.js";
import type { HealthReport } from "./autopilot/health-monitor.js";
import type { RaftMembership } from "./leader/member-reconcile.js";
import type { RaftPeerChanges } from "./leader/member-reconciler.js";
import type { RaftBackend } from "./raft-backend.js";
import { RPC } from "./rpc-codec.js";

const OPERATOR_RPC_TIMEOUT_MS = 10_000;
/** Membership changes go one at a time: a request arriving during another waits this long for its turn. */
const CHANGE_RETRIES = 50;
const CHANGE_RETRY_MS = 200;
const BUSY = new Set(["conf-pending", "term-not-committed"]);
/** The leader's autopilot health report, asked for by a follower serving /v1/operator/autopilot/health. */
const AUTOPILOT_HEALTH_RPC = "cairn.operator.autopilot-health";

export interface AutopilotOptions {
  settings: AutopilotSettings;
  /** Gossip membership; without it a server counts as alive while the leader is connected to it. */
  membership?: MembershipView;
  now: () => number;
}

type Node = ServerRaftNode<ApplyResult>;

/**
 * Membership and leadership operations, run on the leader (forwarded there from a follower): the operator
 * endpoints and the join requests of new servers.
 */
export class RaftAdmin implements RaftOperator, RaftPeerChanges {
  private node: Node | undefined;
  private rpc: ServerRpc | undefined;
  /** Autopilot's configuration and health; a leader duty. */
  readonly autopilot: Autopilot;

  constructor(
    private readonly backend: RaftBackend,
    /** Node name of a server id, from the catalog. */
    private readonly nodeNames: () => Map<string, string>,
    options: AutopilotOptions,
  ) {
    this.autopilot = new Autopilot({
      store: () => backend.store,
      apply: (command) => backend.apply(command),
      applyAsLeader: (command) => backend.applyAsLeader(command),
      agent: options.settings,
      ...(options.membership ? { membership: options.membership } : {}),
      raft: () => this.node,
      serverNames: nodeNames,
      now: options.now,
    });
  }

  /** Only asked on a path that found Raft running, so after `attach`. */
  private serverRpc(): ServerRpc {
    if (!this.rpc) throw new Error("server RPC is not attached yet");
    return this.rpc;
  }

  attach(node: Node, rpc: ServerRpc): void {
    this.node = node;
    this.rpc = rpc;
    const t = rpc;
    t.handle(AUTOPILOT_HEALTH_RPC, () => this.healthHere(node));
    t.handle(RPC.raftConfiguration, () => this.configurationHere(node));
    t.handle(RPC.removePeer, (p) => this.removeHere(node, p as { id: string } | { address: string }));
    t.handle(RPC.transferLeader, (p) => this.transferHere(node, (p as { id?: string }).id));
    t.handle(RPC.join, (p) => {
      const { id, address } = p as { id: unknown; address: unknown };
      if (typeof id !== "string" || typeof address !== "string")
        throw new TypeError("join expects {id, address}");
      return this.joinHere(node, id, address);
    });
  }

  configuration(stale: boolean): Promise<RaftConfigurationView> {
    if (stale && this.node) return Promise.resolve(this.configurationHere(this.node));
    return this.backend.onLeader(
      true,
      async (node) => this.configurationHere(node),
      (_node, leader) =>
        operatorRequest(
          this.serverRpc(),
          leader,
          RPC.raftConfiguration,
          null,
        ) as Promise<RaftConfigurationView>,
    );
  }

  async removePeer(peer: { id: string } | { address: string }): Promise<void> {
    await this.backend.onLeader(
      false,
      (node) => this.removeHere(node, peer),
      (_node, leader) => operatorRequest(this.serverRpc(), leader, RPC.removePeer, peer),
    );
  }

  async transferLeader(id: string | undefined): Promise<void> {
    await this.backend.onLeader(
      false,
      (node) => this.transferHere(node, id),
      (_node, leader) =>
        operatorRequest(this.serverRpc(), leader, RPC.transferLeader, id === undefined ? {} : { id }),
    );
  }

  /**
   * A leader about to stop hands leadership to the most up-to-date voter, so writes pause for one transfer
   * rather than an election timeout. Resolves false when there was nothing to hand over (not the leader, no
   * other voter); rejects when the transfer failed.
   */
  async handOff(): Promise<boolean> {
    const node = this.node;
    if (!node?.isLeader() || mostUpToDateVoter(node) === undefined) return false;
    await this.transferHere(node, undefined);
    return true;
  }

  /** A new server asks to be added as a non-voter. */
  async join(id: string, address: string): Promise<void> {
    await this.backend.onLeader(
      false,
      (node) => this.joinHere(node, id, address),
      (_node, leader) => operatorRequest(this.serverRpc(), leader, RPC.join, { id, address }),
    );
  }

  autopilotHealth(): Promise<HealthReport> {
    return this.backend.onLeader(
      false,
      async (node) => this.healthHere(node),
      (_node, leader) =>
        operatorRequest(this.serverRpc(), leader, AUTOPILOT_HEALTH_RPC, null) as Promise<HealthReport>,
    );
  }

  autopilotConfiguration() {
    return this.autopilot.configuration();
  }

  setAutopilotConfiguration(config: AutopilotConfigSpec, cas: number | undefined): Promise<boolean> {
    return this.autopilot.setConfiguration(config, cas);
  }

  /** This server's Raft configuration (the leader's is current). */
  membership(): RaftMembership | undefined {
    const node = this.node;
    if (!node) return undefined;
    const { conf } = node.status();
    return { voters: conf.voters, learners: conf.learners, address: (id) => node.addressOf(id) };
  }

  /** Removes a server by Raft ID (the leader's autopilot and member reconciliation). */
  async remove(id: string): Promise<void> {
    await this.removePeer({ id });
  }

  private healthHere(node: Node): HealthReport {
    if (!node.isLeader()) throw new RaftOperatorError("autopilot health is known to the leader only");
    return this.autopilot.health.report();
  }

  private configurationHere(node: Node): RaftConfigurationView {
    const status = node.status();
    const names = this.nodeNames();
    const leader = node.leaderId();
    const view = (id: string, voter: boolean): RaftServerView => {
      const lastIndex = id === node.id ? status.lastIndex : status.progress?.[id]?.match;
      return {
        ID: id,
        Node: names.get(id) ?? "(unknown)",
        Address: node.addressOf(id) ?? "",
        Leader: id === leader,
        Voter: voter,
        ...(lastIndex === undefined ? {} : { LastIndex: lastIndex }),
      };
    };
    return {
      Servers: [
        ...status.conf.voters.map((id) => view(id, true)),
        ...status.conf.learners.map((id) => view(id, false)),
      ],
      Index: status.commit,
    };
  }

  private async removeHere(node: Node, peer: { id: string } | { address: string }): Promise<void> {
    const { conf } = node.status();
    const members = [...conf.voters, ...conf.learners];
    let id: string | undefined;
    if ("id" in peer) {
      id = members.find((m) => m === peer.id);
      if (id === undefined)
        throw new RaftOperatorError(`id "${peer.id}" was not found in the Raft configuration`);
    } else {
      id = members.find((m) => node.addressOf(m) === peer.address);
      if (id === undefined)
        throw new RaftOperatorError(`address "${peer.address}" was not found in the Raft configuration`);
    }
    const target = id;
    await whenFree(() => node.remove(target));
  }

  private async transferHere(node: Node, id: string | undefined): Promise<void> {
    const status = node.status();
    let target = id;
    if (target === undefined) {
      target = mostUpToDateVoter(node);
      if (target === undefined) throw new RaftOperatorError("cannot transfer leadership: no other voter");
    } else if (!status.conf.voters.includes(target)) {
      throw new RaftOperatorError(`cannot find peer ${target}`);
    }
    if (target === node.id) return;
    try {
      await node.transferLeadership(target);
    } catch (err) {
      if (err instanceof RaftRejectedError) throw new RaftOperatorError(err.message);
      throw err;
    }
  }

  private async joinHere(node: Node, id: string, address: string): Promise<void> {
    const { conf } = node.status();
    if (conf.voters.includes(id) || conf.learners.includes(id)) return;
    await whenFree(() => node.addLearner(id, address));
  }
}

/** The other voter the leader has replicated furthest to: the one that can take over soonest. */
function mostUpToDateVoter(node: Node): string | undefined {
  const status = node.status();
  const others = status.conf.voters.filter((v) => v !== node.id);
  others.sort((a, b) => (status.progress?.[b]?.match ?? 0) - (status.progress?.[a]?.match ?? 0));
  return others[0];
}

/** Retries a membership change while another one is still committing. */
async function whenFree(change: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await change();
    } catch (err) {
      if (!(err instanceof RaftRejectedError)) throw err;
      if (!BUSY.has(err.reason) || attempt >= CHANGE_RETRIES) throw new RaftOperatorError(err.message);
      await new Promise((resolve) => setTimeout(resolve, CHANGE_RETRY_MS));
    }
  }
}

/** A forwarded operator request; the leader's refusals come back as the same refusals. */
async function operatorRequest(
  rpc: ServerRpc,
  leader: string,
  method: string,
  payload: unknown,
): Promise<unknown> {
  try {
    return await rpc.request(leader, method, payload, OPERATOR_RPC_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof RpcError && err.remoteName === "RaftOperatorError")
      throw new RaftOperatorError(err.message);
    throw err;
  }
}
