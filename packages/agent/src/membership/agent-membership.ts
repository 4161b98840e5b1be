import type { IncomingMessage } from "node:http";
import { join as joinPath } from "node:path";
import { KeyringKeyError } from "@cairn/api";
import {
  type Coordinate,
  datacentersByDistance,
  type GossipConfig,
  GossipNode,
  type GossipNodeStats,
  lanConfig,
  type Member,
  parseKey,
  wanConfig,
} from "@cairn/gossip";
import type { Logger } from "pino";
import type { WebSocket } from "ws";
import type { AgentConfig } from "../config/index.js";
import { advertiseHost } from "../server/addresses.js";
import { withDefaultPort } from "../server/join/protocol.js";
import { type DatacenterCoordinates, datacenterCoordinates, type WanServer } from "./datacenter-distance.js";
import { JoinLoop } from "./join-loop.js";
import { LAN_KEYRING, readKeyringFile, WAN_KEYRING, writeKeyringFile } from "./keyring-file.js";
import { agentMember, type ConsulMember, consulMember, memberStatus, splitAddress } from "./member-record.js";
import { isKeyringPayload, type KeyringOp, PoolKeyring, type PoolKeyringResult } from "./pool-keyring.js";
import { emptyPeers, type RememberedPeers, readPeers, writePeers } from "./remembered-peers.js";
import { agentTags } from "./tags.js";
import type { AgentMember, MembershipView } from "./types.js";

export interface MembershipOptions {
  config: AgentConfig;
  nodeId: string;
  /** Servers only: the server RPC port advertised in tag `port`. Absent = client agent (role=node). */
  serverPort?: number;
  /** Extra websocket routes served on the LAN gossip port, by path (the servers' join service uses "/cairn/join"). */
  lanRoutes?: Record<string, (ws: WebSocket, req: IncomingMessage) => void>;
  /**
   * Persistent data dir (undefined in dev): remembers a graceful leave so that a restart does not rejoin
   * without an explicit join, and the last known members for rejoin after restart.
   */
  dataDir?: string;
  log: Logger;
  /** retry_join gave up after retry_max attempts; Consul shuts the agent down then. Default: logged. */
  onRetryJoinFailed?: (err: Error) => void;
  /** How long a join waits for each address to answer (default 5 s). */
  joinTimeoutMs?: number;
  /** Protocol tuning over memberlist's LAN/WAN defaults (tests speed it up). */
  gossip?: { lan?: Partial<GossipConfig>; wan?: Partial<GossipConfig> };
}

export interface MembershipStats {
  lan: GossipNodeStats;
  wan: GossipNodeStats | undefined;
}

type Pool = "lan" | "wan";

/** One pool's keyring answer as Consul's KeyringResponse. */
export interface KeyringPoolResponse extends PoolKeyringResult {
  WAN: boolean;
  Datacenter: string;
  Segment: string;
}

/** How long changes to the member list collect before the remembered peers are rewritten. */
const PERSIST_DELAY_MS = 1000;
/** Rejoin after a restart: a few attempts, since the others may be restarting too. */
const REJOIN_ATTEMPTS = 5;
const ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/**
 * The agent's gossip membership, as Consul's serf pools: a LAN pool for every agent and, on servers, a WAN
 * pool of servers (named `node.dc`). Starting it binds the pools, replays the remembered peers (unless the
 * agent left gracefully), runs start_join (failure fails the start) and starts the retry_join loops.
 */
export class AgentMembership implements MembershipView {
  private readonly changeListeners = new Set<(member: AgentMember) => void>();
  private readonly userListeners = new Set<(payload: unknown) => void>();
  private readonly loops = new Set<JoinLoop>();
  private leaving = false;
  private stopped = false;
  /** Left gracefully and joined nobody since: nothing to rejoin after a restart. */
  private left: boolean;
  private persistTimer: NodeJS.Timeout | undefined;
  private readonly lanKeyring: PoolKeyring;
  private readonly wanKeyring: PoolKeyring | undefined;

  private constructor(
    private readonly options: MembershipOptions,
    private readonly lan: GossipNode,
    private readonly wan: GossipNode | undefined,
    private readonly peersDir: string | undefined,
    remembered: RememberedPeers,
  ) {
    this.left = remembered.left;
    this.wire(lan, "lan");
    if (wan) this.wire(wan, "wan");
    const dataDir = options.dataDir;
    const keyLog = options.log.child({ component: "keyring" });
    this.lanKeyring = new PoolKeyring(lan, dataDir && joinPath(dataDir, LAN_KEYRING), keyLog);
    this.wanKeyring = wan && new PoolKeyring(wan, dataDir && joinPath(dataDir, WAN_KEYRING), keyLog);
  }

  static async start(options: MembershipOptions): Promise<AgentMembership> {
    const { config, nodeId, serverPort } = options;
    if (config.ports.serfLan < 0)
      throw new Error("serf_lan cannot be disabled: every agent gossips on the LAN");
    const lanHost = advertiseHost(config.bindAddr, config.advertiseAddr);
    const lanKeys = gossipKeys(options, LAN_KEYRING);
    const wan =
      serverPort !== undefined && config.ports.serfWan >= 0
        ? new GossipNode({
            name: `${config.nodeName}.${config.datacenter}`,
            bindHost: config.bindAddr,
            port: config.ports.serfWan,
            advertiseHost: config.advertiseAddrWan ?? lanHost,
            config: wanConfig(options.gossip?.wan),
            tags: agentTags({ config, nodeId, serverPort, wan: true }),
            keys: gossipKeys(options, WAN_KEYRING),
          })
        : undefined;
    await wan?.start();
    const wanJoinPort = wan ? splitAddress(wan.address).port : undefined;
    const lan = new GossipNode({
      name: config.nodeName,
      bindHost: config.bindAddr,
      port: config.ports.serfLan,
      advertiseHost: lanHost,
      config: lanConfig(options.gossip?.lan),
      tags: agentTags({ config, nodeId, serverPort, wanJoinPort, wan: false }),
      keys: lanKeys,
      routes: options.lanRoutes,
    });
    try {
      await lan.start();
    } catch (err) {
      await wan?.close();
      throw err;
    }
    const peersDir = options.dataDir === undefined ? undefined : joinPath(options.dataDir, "serf");
    const remembered = peersDir === undefined ? emptyPeers() : readPeers(peersDir);
    const membership = new AgentMembership(options, lan, wan, peersDir, remembered);
    try {
      await membership.begin(remembered);
    } catch (err) {
      await membership.close();
      throw err;
    }
    return membership;
  }

  /** host:port of the LAN pool, as advertised. */
  get lanAddress(): string {
    return this.lan.address;
  }

  get wanAddress(): string | undefined {
    return this.wan?.address;
  }

  /** Full-state syncs with each address (default port: the pool's own); rejects if none answered. */
  async join(addresses: string[], opts: { wan: boolean }): Promise<number> {
    const pool = opts.wan ? this.wan : this.lan;
    if (!pool) throw new Error("Must be a server to join WAN cluster");
    if (this.stopped) throw new Error("agent membership is stopped");
    const targets = this.targets(addresses, pool);
    const answered = await pool.join(targets, this.options.joinTimeoutMs);
    if (answered === 0) throw new Error(`Failed to join ${targets.join(", ")}: no agent answered`);
    this.options.log.info({ pool: opts.wan ? "wan" : "lan", answered }, "joined cluster");
    this.left = false;
    this.schedulePersist();
    return answered;
  }

  /** Graceful leave of both pools (others see left, not failed), then stops them. */
  async leave(): Promise<void> {
    if (this.stopped) return;
    this.leaving = true;
    this.left = true;
    this.stopLoops();
    this.persistNow();
    await Promise.all([this.lan.leave(), this.wan?.leave()]);
    this.stopped = true;
  }

  /** Consul's force-leave: a failed member becomes left (and, with prune, is forgotten). */
  forceLeave(node: string, opts: { prune: boolean; wan: boolean }): boolean {
    const pool = opts.wan ? this.wan : this.lan;
    if (!pool || this.stopped) return false;
    this.options.log.info({ node, pool: opts.wan ? "wan" : "lan", prune: opts.prune }, "force leaving node");
    return pool.forceLeave(node, { prune: opts.prune });
  }

  /**
   * `/v1/operator/keyring`: runs a keyring operation on the WAN pool (servers) and the LAN pool, each answer
   * as Consul's KeyringResponse, WAN first. `localOnly` (lists only) leaves the WAN pool out.
   */
  async keyring(
    op: KeyringOp,
    key: string | undefined,
    opts: { localOnly: boolean },
  ): Promise<KeyringPoolResponse[]> {
    if (op !== "list") {
      try {
        parseKey(key ?? "");
      } catch {
        throw new KeyringKeyError("Invalid key: a gossip key is base64 of 16, 24 or 32 bytes");
      }
    }
    const datacenter = this.options.config.datacenter;
    const wrap = (wan: boolean, r: PoolKeyringResult): KeyringPoolResponse => ({
      WAN: wan,
      Datacenter: datacenter,
      Segment: "",
      ...r,
    });
    // Consul's local-only keeps the question in this datacenter: no WAN pool.
    const wanKeyring = opts.localOnly ? undefined : this.wanKeyring;
    const [wan, lan] = await Promise.all([wanKeyring?.run(op, key), this.lanKeyring.run(op, key)]);
    return [...(wan ? [wrap(true, wan)] : []), wrap(false, lan)];
  }

  /** The JSON of `/v1/agent/members`; segments do not exist here, so every segment is the same list. */
  members(opts: { wan: boolean; segment?: string }): ConsulMember[] {
    const pool = opts.wan ? this.wan : this.lan;
    if (!pool) return [];
    return this.records(pool)
      .map(consulMember)
      .sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
  }

  lanMembers(): AgentMember[] {
    return this.records(this.lan);
  }

  servers(): AgentMember[] {
    const dc = this.options.config.datacenter;
    return this.lanMembers().filter(
      (m) => m.role === "server" && m.status === "alive" && m.datacenter === dc,
    );
  }

  /**
   * The servers of datacenter `dc` in the WAN pool, alive ones first, failed ones after (still worth a try:
   * gossip may be wrong); left ones never. Empty without a WAN pool or when none is known.
   */
  datacenterServers(dc: string): AgentMember[] {
    if (!this.wan) return [];
    const servers = this.records(this.wan).filter(
      (m) => m.role === "server" && m.datacenter === dc && (m.status === "alive" || m.status === "failed"),
    );
    return [...servers.filter((m) => m.status === "alive"), ...servers.filter((m) => m.status !== "alive")];
  }

  onChange(listener: (member: AgentMember) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  localCoordinate(): Coordinate {
    return this.lan.coordinate();
  }

  coordinateOf(node: string): Coordinate | undefined {
    return this.lan.coordinateOf(node);
  }

  /** WAN datacenters by median estimated RTT from here, this one first; [own dc] without a WAN pool. */
  datacenters(): string[] {
    const own = this.options.config.datacenter;
    if (!this.wan) return [own];
    return datacentersByDistance(own, this.wan.coordinate(), this.wanServers());
  }

  /** `/v1/coordinate/datacenters` from the WAN pool; undefined without one (clients, serf_wan = -1). */
  datacenterCoordinates(): DatacenterCoordinates[] | undefined {
    if (!this.wan) return undefined;
    return datacenterCoordinates(this.datacenters(), this.wanServers());
  }

  /** Gossips an application payload to every LAN member (`onUserMessage` there, not here). */
  broadcast(payload: unknown): void {
    if (!this.stopped) this.lan.broadcast(payload);
  }

  onUserMessage(listener: (payload: unknown) => void): () => void {
    this.userListeners.add(listener);
    return () => this.userListeners.delete(listener);
  }

  stats(): MembershipStats {
    return { lan: this.lan.stats(), wan: this.wan?.stats() };
  }

  /** Stops without leaving: the others will see this agent fail. */
  async close(): Promise<void> {
    this.stopLoops();
    if (this.persistTimer) this.persistNow();
    this.stopped = true;
    await Promise.all([this.lan.close(), this.wan?.close()]);
  }

  // ---- start-up joins ----

  private async begin(remembered: RememberedPeers): Promise<void> {
    const { config, log } = this.options;
    const rejoin = !remembered.left || config.rejoinAfterLeave;
    if (!rejoin) log.info("this agent left the cluster gracefully: not rejoining remembered members");
    else {
      this.loop("rejoin (lan)", remembered.lan, this.lan, REJOIN_ATTEMPTS, false);
      if (this.wan) this.loop("rejoin (wan)", remembered.wan, this.wan, REJOIN_ATTEMPTS, false);
    }
    if (config.startJoin.length > 0) await this.join([...config.startJoin], { wan: false });
    this.loop("retry_join", config.retryJoin, this.lan, config.retryMax, true);
    if (this.wan) {
      const { retryJoinWan, retryMaxWan, retryIntervalWanMs } = config;
      this.loop("retry_join_wan", retryJoinWan, this.wan, retryMaxWan, true, retryIntervalWanMs);
    }
  }

  /** Runs a join loop in the background; `fatal` loops report exhaustion through onRetryJoinFailed. */
  private loop(
    what: string,
    addresses: readonly string[],
    pool: GossipNode,
    max: number,
    fatal: boolean,
    intervalMs = this.options.config.retryIntervalMs,
  ): void {
    const { log } = this.options;
    const usable = addresses.filter((a) => {
      // Cloud auto-join ("provider=aws tag_key=...") needs the provider's API; Cairn does not have it.
      if (a.includes("provider="))
        log.warn({ address: a }, `${what}: cloud auto-join is not supported; skipping`);
      return !a.includes("provider=");
    });
    let targets: string[];
    try {
      targets = this.targets(usable, pool).filter((t) => t !== pool.address);
    } catch (err) {
      log.error({ err: (err as Error).message }, `${what}: not joining`);
      return;
    }
    if (targets.length === 0) return;
    const loop = new JoinLoop({
      what,
      targets,
      attempt: async (t) => {
        const answered = await pool.join(t, this.options.joinTimeoutMs);
        if (answered > 0) this.left = false;
        return answered;
      },
      intervalMs,
      maxAttempts: max,
      log,
    });
    this.loops.add(loop);
    loop
      .run()
      .catch((err: Error) => {
        if (!fatal) log.warn({ err: err.message }, `${what}: giving up`);
        else if (this.options.onRetryJoinFailed) this.options.onRetryJoinFailed(err);
        else log.error({ err: err.message }, `${what}: giving up`);
      })
      .finally(() => this.loops.delete(loop));
  }

  private stopLoops(): void {
    for (const loop of this.loops) loop.stop();
    this.loops.clear();
  }

  /** `host` or `host:port` with the pool's own port as default; anything else is refused. */
  private targets(addresses: readonly string[], pool: GossipNode): string[] {
    const port = splitAddress(pool.address).port;
    return addresses.map((a) => {
      const target = withDefaultPort(a, port);
      const match = ADDRESS.exec(target);
      if (!match || Number(match[2]) > 65535) throw new Error(`invalid address: ${JSON.stringify(a)}`);
      return target;
    });
  }

  // ---- events and persistence ----

  private wire(node: GossipNode, pool: Pool): void {
    const log = this.options.log;
    const changed = (verb: string) => (member: Member) => {
      log.info({ pool, member: member.name, address: member.address }, `member ${verb}`);
      if (verb === "joined" && !this.leaving) this.left = false;
      this.schedulePersist();
      if (pool !== "lan") return;
      const record = this.record(member);
      for (const listener of this.changeListeners) listener(record);
      if (verb === "joined" || verb === "updated") this.floodJoin(member);
    };
    node.on("member-join", changed("joined"));
    node.on("member-update", changed("updated"));
    node.on("member-failed", changed("failed"));
    node.on("member-leave", changed("left"));
    node.on("member-reap", changed("reaped"));
    if (pool === "lan") {
      node.on("user-message", ({ payload }) => {
        // Keyring questions ride on the same broadcasts; their pool's keyring answers them.
        if (isKeyringPayload(payload)) return;
        for (const listener of this.userListeners) listener(payload);
      });
    }
  }

  /**
   * Consul's flood join: a server joins the WAN pool of each server of its datacenter it meets on the LAN
   * (tag `wan_join_port`), so every server of a datacenter is in the WAN pool whichever of them another
   * datacenter happened to join (one that joined before the others had started would otherwise leave them
   * out of the WAN for good).
   */
  private floodJoin(member: Member): void {
    const wan = this.wan;
    const port = member.tags.wan_join_port;
    if (!wan || this.stopped || this.leaving || port === undefined) return;
    const { datacenter } = this.options.config;
    if (member.tags.dc !== datacenter || member.name === this.lan.localMember().name) return;
    const wanName = `${member.name}.${datacenter}`;
    if (wan.members().some((m) => m.name === wanName)) return;
    const host = splitAddress(member.address).host;
    const target = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    this.join([target], { wan: true }).catch((err: Error) =>
      this.options.log.debug({ member: member.name, err: err.message }, "flood join of the WAN pool failed"),
    );
  }

  private record(member: Member, pool: GossipNode = this.lan): AgentMember {
    return agentMember(member, memberStatus(member, this.leaving, pool.localMember().name));
  }

  private records(pool: GossipNode): AgentMember[] {
    return pool.members().map((m) => this.record(m, pool));
  }

  private wanServers(): WanServer[] {
    const wan = this.wan;
    if (!wan) return [];
    const self = wan.localMember().name;
    return wan
      .members()
      .filter((m) => m.state === "alive" || m.state === "suspect")
      .map((m) => ({
        name: m.name,
        datacenter: m.tags.dc ?? "",
        coordinate: m.name === self ? wan.coordinate() : wan.coordinateOf(m.name),
      }));
  }

  private schedulePersist(): void {
    if (this.peersDir === undefined || this.persistTimer || this.stopped || this.leaving) return;
    this.persistTimer = setTimeout(() => this.persistNow(), PERSIST_DELAY_MS);
    this.persistTimer.unref();
  }

  private persistNow(): void {
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    if (this.peersDir === undefined) return;
    const alive = (pool: GossipNode | undefined) =>
      this.left || !pool
        ? []
        : pool
            .members()
            .filter((m) => m.state === "alive" && m.address !== pool.address)
            .map((m) => m.address);
    try {
      writePeers(this.peersDir, { left: this.left, lan: alive(this.lan), wan: alive(this.wan) });
    } catch (err) {
      this.options.log.warn({ err: (err as Error).message }, "could not remember the cluster's members");
    }
  }
}

/**
 * A pool's gossip keys: its keyring file in the data dir when there is one (Consul lets it win over
 * `encrypt`, which then only seeds a new agent), else `encrypt`, which is written to the file so that keys
 * installed later survive restarts.
 */
function gossipKeys(options: MembershipOptions, file: string): string[] | undefined {
  const { config, dataDir, log } = options;
  const path = dataDir === undefined ? undefined : joinPath(dataDir, file);
  const stored = path === undefined ? undefined : readKeyringFile(path);
  if (stored !== undefined) {
    if (config.encrypt !== undefined && !stored.includes(config.encrypt))
      log.warn({ file }, "the keyring file does not hold the encrypt key: using the keyring file");
    return stored;
  }
  if (config.encrypt === undefined) return undefined;
  if (path !== undefined) writeKeyringFile(path, [config.encrypt]);
  return [config.encrypt];
}
