import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type PrimaryFetch, ReplicationStatus } from "@cairn/api";
import { type ApplyResult, COMMAND_VERSION } from "@cairn/fsm";
import {
  openLevelRaftNode,
  type ServerRaftNode,
  type SharedServerPort,
  type TransportTls,
} from "@cairn/raft";
import type { Logger } from "pino";
import type { RemoteTokens } from "../client/acl/remote-tokens.js";
import type { AgentConfig } from "../config/index.js";
import { agentNodeMeta } from "../local/node-meta.js";
import type { AgentMember, MembershipView } from "../membership/types.js";
import { ServerPort } from "../server-port/server-port.js";
import { ServerRpc } from "../server-rpc/server-rpc.js";
import { clientCalls, MAX_FRAME_BYTES, TUNNEL_PATH, type TunnelFetch, tunnelRoute } from "../tunnel/index.js";
import { advertiseHost, hostPort } from "./addresses.js";
import { planFormation } from "./formation-plan.js";
import { FsmStateMachine } from "./fsm-state-machine.js";
import { Discovery } from "./join/discovery.js";
import type { JoinHandlers } from "./join/join-listener.js";
import type { ServerInfo } from "./join/protocol.js";
import { AclDuties } from "./leader/acl-duties.js";
import { gossipDuties } from "./leader/gossip-duties.js";
import { LeaderDuties } from "./leader/leader-duties.js";
import { LearnerPromotion } from "./leader/learner-promotion.js";
import { ReplicationDuty } from "./leader/replication-duty.js";
import { SessionTimers } from "./leader/session-timers.js";
import { DEFAULT_TOMBSTONE_GC, TombstoneGc, type TombstoneGcOptions } from "./leader/tombstone-gc.js";
import { LeaderContact } from "./leader-contact.js";
import { resolveNodeId } from "./node-identity.js";
import { RaftAdmin } from "./raft-admin.js";
import { RaftBackend } from "./raft-backend.js";
import { recoverFromPeersFile } from "./recovery/recover-from-peers-file.js";
import { isRegistered, type SelfIdentity, selfRegistration } from "./self-registration.js";

const TICK_MS = 100;
/**
 * Election timeout in ticks per unit of raft_multiplier (Consul's base: 1 s), drawn from [N s, 1.5 N s). A
 * leader whose process died is not waited out: its address refuses connections and the survivors campaign
 * at once (RaftNode), so the timeout only has to catch a leader that is cut off or hung, and must stay above
 * the event-loop stalls of a live leader on a loaded host (measured on a shared 2-core machine at load 20-25:
 * p99 about 60 ms, many of 0.7-1.6 s, a few of 2-3.7 s; see OPERATIONS.md). A server's own stalls do not
 * count (RaftNode) and PreVote keeps a server that was cut off from deposing a healthy leader. The narrow
 * random part (half the floor, not Raft's customary whole) keeps the worst failover close to the typical one.
 */
const ELECTION_TICKS = 10;
const ELECTION_JITTER_TICKS = 5;
/**
 * A campaign round that neither won nor lost (a split vote) is retried after [0.2 s, 0.7 s), at any
 * multiplier: there is no live leader to wait out.
 */
const ELECTION_RETRY_TICKS = 2;
const REGISTRATION_CHECK_MS = 2_000;
const ACL_REAP_INTERVAL_MS = 5_000;
/**
 * A proposal on a leader that lost its quorum would otherwise wait until the partition heals; Consul's leader
 * likewise gives up on a Raft apply after 30 s (the outcome is then unknown to the caller).
 */
const PROPOSE_TIMEOUT_MS = 30_000;
/**
 * A stopping server refuses forwarded requests until none came for this long: long enough for every server
 * to have heard from the new leader after a hand-off (a few heartbeats), short enough not to slow a stop.
 */
const DRAIN_QUIET_MS = 300;

export interface ServerOptions {
  config: AgentConfig;
  /** The data directory to use (a temporary one in dev mode). */
  dataDir: string;
  log: Logger;
  tombstoneGc?: TombstoneGcOptions;
  /** How often the leader reaps expired tokens and purges deleted namespaces (default 5 s). */
  aclReapIntervalMs?: number;
  /** Wall clock stamped into the commands this server makes (the agent's clock, `-clock-offset` included). */
  now?: () => number;
  /** Gossip membership: the leader reconciles members into the catalog and Raft. Absent: no reconciliation. */
  membership?: ServerMembership;
  /**
   * Client agents' requests arriving through the tunnel on the server RPC port: the agent's own HTTP app. The
   * server adds its answers to their agent RPCs (anti-entropy, token resolution with ACLs on).
   */
  clientFetch?: TunnelFetch;
  /** TLS on the server RPC port (Raft, snapshots, the client tunnel); absent: plaintext. */
  tls?: TransportTls;
  /** The leader's limit of entries waiting to commit (Raft's default when absent); writes past it answer 429. */
  maxUncommittedEntries?: number;
  /**
   * Reads of the primary datacenter's API (through `dc` forwarding). With it, a server of a secondary
   * datacenter replicates ACLs and config entries while it leads.
   */
  primary?: PrimaryFetch;
  /** A secondary without token replication: tokens it does not hold, resolved in the primary. */
  remoteTokens?: RemoteTokens;
}

/** The gossip pool as a server uses it: members to reconcile, its own LAN address, and joining servers found. */
export interface ServerMembership extends MembershipView {
  readonly lanAddress: string;
  join(addresses: string[], opts: { wan: boolean }): Promise<number>;
}

interface ServerEvents {
  /** Raft stopped on an error it cannot continue after. */
  fatal: [error: Error];
  /** The known Raft leader or this server's role changed, however its Raft started (bootstrap, join, restart). */
  leadership: [isLeader: boolean];
  /** Entries proposed here committed, the oldest after `latencyMs` (Consul's `consul.raft.commitTime`). */
  raftCommitted: [entries: number, latencyMs: number];
  /** One fsynced Raft log write. */
  raftFsynced: [ms: number];
}

/**
 * A Cairn server: Raft over the fsm's state store, the backend the HTTP API uses, cluster formation through
 * the join service, self-registration in the catalog, and the leader's duties while it leads.
 */
export class CairnServer extends EventEmitter<ServerEvents> {
  readonly backend: RaftBackend;
  readonly admin: RaftAdmin;
  /** Requests between the servers (forwarding to the leader, operator calls), on the server port. */
  private readonly rpc: ServerRpc;
  private node: ServerRaftNode<ApplyResult> | undefined;
  private serverPort: ServerPort | undefined;
  private contact: LeaderContact | undefined;
  private readonly discovery: Discovery;
  private readonly duties: LeaderDuties;
  private readonly fsm = new FsmStateMachine();
  private registrationTimer: NodeJS.Timeout | undefined;
  private registering = false;
  private stopped = false;
  private readonly now: () => number;
  /** A secondary datacenter's replication from the primary; undefined in the primary. */
  readonly replication: ReplicationDuty | undefined;
  /** What `/v1/acl/replication` reports for this server. */
  readonly replicationStatus: ReplicationStatus;

  private constructor(
    private readonly options: ServerOptions,
    public self: SelfIdentity,
    private rpcAddress: string,
    private joinAddress: string,
  ) {
    super();
    const { config, log } = options;
    this.now = options.now ?? Date.now;
    const sessions = new SessionTimers({
      store: this.fsm.store,
      invalidate: async (s) => {
        await this.backend.applyAsLeader({
          v: COMMAND_VERSION,
          type: "session.invalidate",
          ns: s.Namespace,
          id: s.ID,
          now: this.now(),
        });
      },
      log: log.child({ component: "leader" }),
    });
    this.backend = new RaftBackend({
      fsm: this.fsm,
      sessions,
      log: log.child({ component: "rpc" }),
      now: this.now,
    });
    this.rpc = new ServerRpc({
      nodeId: this.self.id,
      clusterId: config.datacenter,
      addressOf: (peer) => this.node?.addressOf(peer),
      ...(options.tls ? { tls: options.tls } : {}),
      log: log.child({ component: "server.rpc" }),
    });
    this.admin = new RaftAdmin(this.backend, () => this.serverNames(), {
      settings: config.autopilot,
      ...(options.membership ? { membership: options.membership } : {}),
      now: this.now,
    });
    const tombstones = new TombstoneGc(
      {
        store: this.fsm.store,
        reap: async (index) => {
          await this.backend.applyAsLeader({ v: COMMAND_VERSION, type: "tombstone.reap", index });
        },
        log: log.child({ component: "leader" }),
      },
      options.tombstoneGc ?? DEFAULT_TOMBSTONE_GC,
    );
    const secondary = config.primaryDatacenter !== config.datacenter;
    this.replicationStatus = new ReplicationStatus(
      secondary && config.acl.enabled,
      config.primaryDatacenter,
      config.acl.enableTokenReplication,
    );
    this.replication =
      secondary && options.primary
        ? new ReplicationDuty({
            store: this.fsm.store,
            apply: (command) => this.backend.applyAsLeader(command),
            primary: options.primary,
            status: this.replicationStatus,
            acl: config.acl.enabled,
            intervalMs: config.acl.replication.intervalMs,
            initialDelayMs: config.acl.replication.initialDelayMs,
            applyRate: config.acl.replication.applyRate,
            now: this.now,
            log: log.child({ component: "replication" }),
          })
        : undefined;
    this.duties = new LeaderDuties(sessions, tombstones, [
      new LearnerPromotion(
        {
          isLeader: () => this.node?.isLeader() ?? false,
          status: () => this.node!.status(),
          promote: (id) => this.node!.promote(id),
        },
        { settings: () => this.admin.autopilot.settings(), checkEveryMs: 1_000 },
        log.child({ component: "autopilot" }),
      ),
      new AclDuties({
        store: this.fsm.store,
        apply: (command) => this.backend.applyAsLeader(command),
        log: log.child({ component: "leader" }),
        now: this.now,
        aclEnabled: config.acl.enabled,
        initialManagement: config.acl.tokens.initialManagement,
        intervalMs: options.aclReapIntervalMs ?? ACL_REAP_INTERVAL_MS,
        uuid: randomUUID,
      }),
      this.admin.autopilot,
      ...gossipDuties({
        membership: options.membership,
        self: () => ({ ...this.self, primaryDatacenter: config.primaryDatacenter }),
        store: this.fsm.store,
        apply: (command) => this.backend.applyAsLeader(command),
        raft: this.admin,
        serverNames: () => this.serverNames(),
        autopilot: () => this.admin.autopilot.settings(),
        log,
        now: this.now,
      }),
      // Last, so the ACL built-ins exist before a first replication cycle compares against them.
      ...(this.replication ? [this.replication] : []),
    ]);
    this.fsm.listen(this.duties);
    this.discovery = new Discovery({
      self: () => this.info(),
      retryJoin: config.retryJoin,
      defaultPort: config.ports.serfLan,
      retryIntervalMs: config.retryIntervalMs,
      retryMax: config.retryMax,
      log: log.child({ component: "join" }),
      // The join exchange finds servers before gossip may have: a server it finds is joined in gossip too,
      // so that no server waits out retry_interval alone in its LAN pool.
      discovered: (info) => this.gossipJoin(info.joinAddress),
      refused: (reason) => this.fail(new Error(reason)),
    });
  }

  static async start(options: ServerOptions): Promise<CairnServer> {
    const { config, dataDir } = options;
    const id = await resolveNodeId(config.nodeId, dataDir);
    const host = advertiseHost(config.bindAddr, config.advertiseAddr);
    const self: SelfIdentity = {
      id,
      name: config.nodeName,
      datacenter: config.datacenter,
      address: host,
      serverPort: config.ports.server,
      meta: agentNodeMeta(config.nodeMeta),
    };
    const server = new CairnServer(
      options,
      self,
      hostPort(host, config.ports.server),
      hostPort(host, config.ports.serfLan),
    );
    try {
      await server.begin();
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  get store() {
    return this.fsm.store;
  }

  /** Server RPC (Raft) address, as other servers and /v1/status report it. */
  get serverAddress(): string {
    return this.rpcAddress;
  }

  /**
   * What the join exchange answers with: the agent serves it on the LAN gossip port (`joinRoute`), and the
   * servers that say hello there are the ones formation and joining know of.
   */
  joinHandlers(): JoinHandlers {
    return {
      info: () => this.info(),
      known: () => this.discovery.knownAddresses(),
      hello: (from) => this.discovery.heard(from),
      join: (id, address) => this.admin.join(id, address),
    };
  }

  get raft(): ServerRaftNode<ApplyResult> | undefined {
    return this.node;
  }

  /** This server's facts for the join exchange. */
  info(): ServerInfo {
    const node = this.node;
    const voters: Record<string, string> = {};
    if (node) for (const v of node.status().conf.voters) voters[v] = node.addressOf(v) ?? "";
    return {
      id: this.self.id,
      name: this.self.name,
      datacenter: this.self.datacenter,
      primaryDatacenter: this.options.config.primaryDatacenter,
      rpcAddress: this.rpcAddress,
      joinAddress: this.joinAddress,
      hasState: node !== undefined,
      voters,
      leader: node?.leaderId() ?? null,
    };
  }

  private async begin(): Promise<void> {
    const { config, log } = this.options;
    const membership = this.options.membership;
    if (membership) {
      // The join exchange shares the LAN gossip port; servers gossip reveals are asked to it too, so servers
      // need not all be named by retry_join.
      this.joinAddress = membership.lanAddress;
      const heardOf = (m: AgentMember) => {
        if (m.role === "server" && m.datacenter === config.datacenter && m.status === "alive")
          this.discovery.target(hostPort(m.host, m.port));
      };
      for (const m of membership.servers()) heardOf(m);
      membership.onChange(heardOf);
    }
    const raftDir = join(this.options.dataDir, "raft");
    if (existsSync(raftDir)) {
      await recoverFromPeersFile(raftDir, this.self.id, log.child({ component: "recovery" }));
      await this.startRaft(undefined, {});
    } else if (config.bootstrap) {
      log.info("bootstrapping a new cluster with this server as its only voter (-bootstrap)");
      await this.startRaft([this.self.id], {});
    } else if (config.bootstrapExpect > 0) {
      this.formByExpectation(config.bootstrapExpect).catch((err: Error) => this.fail(err));
      return;
    } else {
      await this.startRaft(undefined, {});
    }
  }

  /** bootstrap_expect: discover servers until the plan says bootstrap or join, then start Raft. */
  private async formByExpectation(expect: number): Promise<void> {
    const log = this.options.log.child({ component: "join" });
    log.info({ expect }, "waiting for servers to bootstrap the cluster (bootstrap_expect)");
    let lastKnown = 0;
    const decided = await this.discovery.repeat(async () => {
      const plan = planFormation(this.info(), expect, this.discovery.known());
      if (plan.kind === "wait") {
        if (plan.known !== lastKnown)
          log.info({ known: plan.known, expect }, "servers known, waiting for more");
        lastKnown = plan.known;
        return false;
      }
      // Raft's first configuration carries no addresses: every server starts knowing all it has heard of,
      // so that any of them can reach the others after the first leader is gone.
      const peers = this.knownAddresses();
      if (plan.kind === "bootstrap") {
        log.info({ voters: Object.keys(plan.voters) }, "bootstrapping the cluster");
        await this.startRaft(Object.keys(plan.voters), { ...peers, ...plan.voters });
      } else {
        log.info("found an existing cluster, joining it");
        await this.startRaft(undefined, peers);
      }
      return true;
    });
    if (!decided) log.debug("formation stopped before the cluster formed");
  }

  private async startRaft(bootstrap: string[] | undefined, peers: Record<string, string>): Promise<void> {
    if (this.stopped) return;
    const { config, log } = this.options;
    const multiplier = Math.max(1, config.performance.raftMultiplier);
    const start = (serverPort: SharedServerPort) =>
      openLevelRaftNode<ApplyResult>({
        id: this.self.id,
        clusterId: config.datacenter,
        dataDir: join(this.options.dataDir, "raft"),
        serverPort,
        peers,
        ...(bootstrap ? { bootstrap } : {}),
        stateMachine: this.fsm,
        logger: log.child({ component: "raft" }),
        tickMs: TICK_MS,
        electionTicks: ELECTION_TICKS * multiplier,
        electionJitterTicks: ELECTION_JITTER_TICKS * multiplier,
        electionRetryTicks: ELECTION_RETRY_TICKS,
        heartbeatTicks: multiplier,
        snapshotThreshold: config.raftSnapshotThreshold,
        snapshotIntervalMs: config.raftSnapshotIntervalMs,
        trailingLogs: config.raftTrailingLogs,
        proposeTimeoutMs: PROPOSE_TIMEOUT_MS,
        ...(this.options.maxUncommittedEntries !== undefined
          ? { maxUncommittedEntries: this.options.maxUncommittedEntries }
          : {}),
        ...(this.options.tls ? { tls: this.options.tls } : {}),
        observer: {
          committed: (entries, latencyMs) => this.emit("raftCommitted", entries, latencyMs),
          fsynced: (ms) => this.emit("raftFsynced", ms),
        },
      });
    const port = await this.openServerPort();
    let node: ServerRaftNode<ApplyResult>;
    try {
      node = await start({ address: this.rpcAddress, route: (path, handler) => port.route(path, handler) });
    } catch (err) {
      await port.close();
      throw err;
    }
    this.serverPort = port;
    if (this.stopped) {
      await node.stop();
      await port.close();
      return;
    }
    this.node = node;
    // A server that starts without a configuration (joining) links only to servers it hears from, and its
    // first answers would wait for that link; dial every server it knows of now, as members to be.
    if (bootstrap === undefined)
      for (const [id, address] of Object.entries(peers)) node.transport.setPeer(id, address);
    this.contact = new LeaderContact(node, this.rpc);
    this.contact.start();
    this.backend.attach(node, this.contact, this.rpc);
    this.admin.attach(node, this.rpc);
    node.on("leader", (_leader, role) => {
      this.emit("leadership", role === "leader");
      this.duties.leadership(role === "leader");
      this.checkRegistration();
    });
    node.on("fatal", (err) => this.fail(err));
    this.duties.leadership(node.isLeader());
    this.registrationTimer = setInterval(() => this.checkRegistration(), REGISTRATION_CHECK_MS);
    this.registrationTimer.unref();
    if (!this.isMember()) {
      this.discovery.joinCluster(() => this.isMember()).catch((err: Error) => this.fail(err));
    }
  }

  /** The server RPC port, with the client agents' tunnel on it; Raft adds its own route. */
  private async openServerPort(): Promise<ServerPort> {
    const { config, log } = this.options;
    const open = (port: number) =>
      ServerPort.open(config.bindAddr, port, this.options.tls, log.child({ component: "transport" }));
    let port: ServerPort;
    try {
      port = await open(config.ports.server);
    } catch (err) {
      // A dev server talks to nobody: when the server port is taken (another agent on this machine), any
      // free port will do.
      if (!config.dev || (err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
      log.warn({ port: config.ports.server }, "server port in use; the dev server takes a free port instead");
      port = await open(0);
      this.rpcAddress = hostPort(config.bindAddr, port.port);
      this.self = { ...this.self, serverPort: port.port };
    }
    this.rpc.serve(port);
    if (this.options.clientFetch)
      port.websocketRoute(TUNNEL_PATH, this.clientTunnel(this.options.clientFetch), MAX_FRAME_BYTES);
    return port;
  }

  private clientTunnel(fetch: TunnelFetch): ReturnType<typeof tunnelRoute> {
    const { config, log } = this.options;
    return tunnelRoute(fetch, {
      log: log.child({ component: "client.rpc" }),
      leader: {
        current: () => {
          const node = this.node;
          return node ? { id: node.leaderId(), term: node.status().term } : { id: null, term: 0 };
        },
        subscribe: (listener) => this.on("leadership", listener),
      },
      calls: clientCalls({
        backend: this.backend,
        config,
        now: this.now,
        ...(this.options.remoteTokens ? { remoteTokens: this.options.remoteTokens } : {}),
      }),
    });
  }

  private gossipJoin(lanAddress: string): void {
    const membership = this.options.membership;
    if (!membership) return;
    const member = membership.lanMembers().find((m) => hostPort(m.host, m.port) === lanAddress);
    if (member?.status === "alive") return;
    membership.join([lanAddress], { wan: false }).catch((err: Error) => {
      this.options.log.debug(
        { address: lanAddress, err: err.message },
        "gossip join of a discovered server failed",
      );
    });
  }

  /** Server addresses by id from every hello: the servers themselves and the voters they know. */
  private knownAddresses(): Record<string, string> {
    const addresses: Record<string, string> = {};
    for (const peer of this.discovery.known()) {
      for (const [id, address] of Object.entries(peer.voters)) if (address) addresses[id] = address;
      addresses[peer.id] = peer.rpcAddress;
    }
    delete addresses[this.self.id];
    return addresses;
  }

  private isMember(): boolean {
    const conf = this.node?.status().conf;
    return conf !== undefined && (conf.voters.includes(this.self.id) || conf.learners.includes(this.self.id));
  }

  /** Registers this server in the catalog once a leader exists and whenever the entry is missing. */
  private checkRegistration(): void {
    if (this.registering || this.stopped || !this.node?.leaderId()) return;
    // With gossip the leader reconciles every other server's entry (a failed one must stay critical, not be
    // re-registered passing by a server that still reaches the leader); it registers only itself.
    if (this.options.membership && !this.node.isLeader()) return;
    if (isRegistered(this.fsm.store, this.self)) return;
    this.registering = true;
    this.backend
      .apply(selfRegistration(this.self, this.now()))
      .then(
        () => this.options.log.info({ node: this.self.name }, "registered this server in the catalog"),
        (err: Error) => this.options.log.debug({ err: err.message }, "self-registration deferred"),
      )
      .finally(() => {
        this.registering = false;
      });
  }

  /** Raft ID -> node name, from the catalog (servers register themselves with their node ID). */
  private serverNames(): Map<string, string> {
    const names = new Map<string, string>();
    for (const n of this.fsm.store.view().nodes().value) if (n.ID) names.set(n.ID, n.Node);
    return names;
  }

  /** Bounded by an election timeout: a stop must not wait on a transfer the others cannot complete. */
  private async handOffLeadership(): Promise<void> {
    if (!this.node?.isLeader()) return;
    const { log } = this.options;
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.electionTimeoutMs());
    });
    try {
      const outcome = await Promise.race([this.admin.handOff(), bound]);
      if (outcome === "timeout") log.warn("leadership transfer before stopping timed out; stopping anyway");
      else if (outcome) log.info({ ms: Date.now() - started }, "handed leadership over before stopping");
    } catch (err) {
      log.warn(
        { err: (err as Error).message },
        "leadership transfer before stopping failed; stopping anyway",
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private electionTimeoutMs(): number {
    return ELECTION_TICKS * Math.max(1, this.options.config.performance.raftMultiplier) * TICK_MS;
  }

  private fail(err: Error): void {
    if (this.stopped) return;
    this.options.log.error({ err: err.message }, "server cannot continue");
    this.emit("fatal", err);
  }

  /**
   * A planned stop (SIGTERM, SIGINT, leave): a leader first hands leadership over, so writes pause for one
   * transfer rather than for the election the others would need after its heartbeats stop.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.handOffLeadership();
    // Forwarded writes in progress answer before the transport closes; a closed connection would leave their
    // senders not knowing whether they ran.
    await this.backend.drain(this.electionTimeoutMs(), DRAIN_QUIET_MS);
    this.discovery.stop();
    clearInterval(this.registrationTimer);
    this.duties.stop();
    this.contact?.stop();
    await this.node?.stop();
    this.rpc.close();
    await this.serverPort?.close();
  }
}
