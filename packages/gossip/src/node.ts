import { EventEmitter } from "node:events";
import { VivaldiClient } from "./coordinate/client.js";
import type { Coordinate } from "./coordinate/coordinate.js";
import { CoordinatePingDelegate } from "./coordinate/ping-delegate.js";
import { type GossipConfig, lanConfig } from "./core/config.js";
import { Membership } from "./core/membership.js";
import type { Member, MemberEventType, Message, Output, Tags } from "./core/types.js";
import {
  emptyTransportStats,
  type GossipTransport,
  type Scheduler,
  systemScheduler,
  type TransportFactory,
  type TransportStats,
} from "./ports.js";
import { Keyring } from "./transport/keyring.js";
import { type WebSocketRoute, WsTransport } from "./transport/ws-transport.js";

export interface GossipNodeOptions {
  name: string;
  /** How packets travel; the ws transport on bindHost/port (with encrypt/keys and routes) when not given. */
  transport?: TransportFactory;
  /** Time and timers; the system clock when not given (simulations pass a virtual one). */
  scheduler?: Scheduler;
  /** Randomness for probe order, gossip targets and Vivaldi; Math.random when not given. */
  random?: () => number;
  bindHost?: string;
  /** Gossip port (Consul: LAN 8301, WAN 8302); 0 picks a free one. */
  port?: number;
  advertiseHost?: string;
  /** LAN by default; pass wanConfig() for a WAN pool. */
  config?: GossipConfig;
  tags?: Tags;
  /** Base64 16/24/32-byte shared key, as Consul's -encrypt. */
  encrypt?: string;
  /** Base64 keys, the primary first (a keyring file's content); wins over `encrypt`. */
  keys?: readonly string[];
  /** How long leave() waits for its broadcast to spread (ms). */
  leaveTimeout?: number;
  /** Other WebSocket services served on the gossip port, by request path (`/gossip` stays gossip's). */
  routes?: Readonly<Record<string, WebSocketRoute>>;
}

export interface GossipNodeStats {
  members: number;
  alive: number;
  healthScore: number;
  queuedBroadcasts: number;
  transport: TransportStats;
}

export interface GossipNodeEvents {
  "member-join": [Member];
  "member-update": [Member];
  "member-failed": [Member];
  "member-leave": [Member];
  "member-reap": [Member];
  "user-message": [{ origin: string; payload: unknown }];
  "direct-message": [{ from: string; payload: unknown }];
}

/**
 * Runs the membership core: feeds it packets and timer ticks, sends what it asks to, and turns its events
 * into node events. Transport, time and randomness are injected (by default the ws transport, the system
 * clock and Math.random), so a simulation runs this same driver over a simulated network and virtual time.
 */
export class GossipNode extends EventEmitter<GossipNodeEvents> {
  private core: Membership | undefined;
  private transport: GossipTransport | undefined;
  private cancelTimer: (() => void) | undefined;
  private readonly scheduler: Scheduler;
  private readonly random: () => number;
  private readonly coordinates: CoordinatePingDelegate;
  /** Joins awaiting their push-pull reply, by seq: the address asked, and how to settle. */
  private readonly joinWaiters = new Map<number, { address: string; settle: (answered: boolean) => void }>();
  /** Undefined when gossip is not encrypted. */
  readonly keyring: Keyring | undefined;

  constructor(private readonly options: GossipNodeOptions) {
    super();
    const keys = options.keys?.length ? options.keys : options.encrypt === undefined ? [] : [options.encrypt];
    this.keyring = keys.length > 0 ? new Keyring(keys) : undefined;
    this.scheduler = options.scheduler ?? systemScheduler;
    this.random = options.random ?? Math.random;
    this.coordinates = new CoordinatePingDelegate(new VivaldiClient(this.random));
  }

  async start(): Promise<void> {
    if (this.transport) return;
    const open =
      this.options.transport ?? ((handlers) => this.listenWs(handlers.packet, handlers.unreachable));
    const transport = await open({
      // Packets arriving before the core exists (none can over ws: nobody knows the address yet) are dropped.
      packet: (from, packet) => {
        if (this.core) this.apply(this.core.receive(from, packet, this.scheduler.now()));
      },
      unreachable: (address) => this.unreachable(address),
    });
    this.transport = transport;
    this.core = new Membership({
      name: this.options.name,
      address: transport.address,
      config: this.options.config ?? lanConfig(),
      random: this.random,
      now: this.scheduler.now(),
      tags: this.options.tags,
      pingDelegate: this.coordinates,
    });
    this.schedule();
  }

  get address(): string {
    this.running();
    return this.transport?.address ?? "";
  }

  /**
   * Full-state syncs with each address; resolves with how many answered within `timeoutMs`. An address
   * that cannot be connected to counts as not answering at once.
   */
  async join(addresses: readonly string[], timeoutMs = 5000): Promise<number> {
    const result = this.running().join(addresses, this.scheduler.now());
    const answered = result.seqs.map(
      (seq, i) =>
        new Promise<boolean>((resolve) => {
          const cancel = this.scheduler.after(timeoutMs, () => settle(false));
          const settle = (ok: boolean) => {
            cancel();
            this.joinWaiters.delete(seq);
            resolve(ok);
          };
          this.joinWaiters.set(seq, { address: addresses[i] ?? "", settle });
        }),
    );
    this.apply(result);
    return (await Promise.all(answered)).filter(Boolean).length;
  }

  /** Graceful leave: broadcasts it, waits (bounded) for it to spread, then stops. */
  async leave(): Promise<void> {
    const core = this.running();
    this.apply(core.leave(this.scheduler.now()));
    const deadline = this.scheduler.now() + (this.options.leaveTimeout ?? 5000);
    while (core.liveCount() > 0 && core.hasPendingBroadcast(core.name) && this.scheduler.now() < deadline) {
      await new Promise((resolve) => this.scheduler.after(50, () => resolve(undefined)));
    }
    await this.close();
  }

  /** Stops without telling anyone (others will detect the failure). */
  async close(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    const transport = this.transport;
    this.transport = undefined;
    await transport?.close();
  }

  members(): Member[] {
    return this.running().memberList();
  }

  /** This node's view of the member called `name`, if it knows one. */
  member(name: string): Member | undefined {
    return this.running().member(name);
  }

  localMember(): Member {
    return this.running().localMember();
  }

  setTags(tags: Tags): void {
    this.apply(this.running().setTags(tags, this.scheduler.now()));
  }

  coordinate(): Coordinate {
    return this.coordinates.client.coordinate();
  }

  coordinateOf(name: string): Coordinate | undefined {
    if (name === this.options.name) return this.coordinate();
    return this.coordinates.coordinateOf(name);
  }

  /** Consul's force-leave: true if a failed member was moved to left (and, with prune, forgotten). */
  forceLeave(name: string, options: { prune?: boolean } = {}): boolean {
    const result = this.running().forceLeave(name, options.prune ?? false, this.scheduler.now());
    this.apply(result);
    return result.changed;
  }

  /** Sends an application payload to the member at `address` alone (`direct-message` there). */
  sendDirect(address: string, payload: unknown): void {
    this.running();
    this.transport?.send(address, [{ t: "direct", payload }]);
  }

  /** Disseminates an application payload to every member (`user-message` there). */
  broadcast(payload: unknown): void {
    this.running().broadcast(payload);
    this.schedule();
  }

  stats(): GossipNodeStats {
    const core = this.running();
    return {
      members: core.memberList().length,
      alive: core.liveCount(),
      healthScore: core.healthScore(),
      queuedBroadcasts: core.queuedBroadcasts(),
      transport: this.transport?.stats() ?? emptyTransportStats(),
    };
  }

  private listenWs(
    onPacket: (from: string, packet: Message[]) => void,
    onUnreachable: (address: string) => void,
  ): Promise<WsTransport> {
    return WsTransport.listen(
      {
        bindHost: this.options.bindHost ?? "127.0.0.1",
        port: this.options.port ?? 0,
        advertiseHost: this.options.advertiseHost,
        key: this.keyring,
        routes: this.options.routes,
        onUnreachable,
      },
      onPacket,
    );
  }

  private unreachable(address: string): void {
    for (const waiter of [...this.joinWaiters.values()]) if (waiter.address === address) waiter.settle(false);
  }

  private running(): Membership {
    if (!this.core) throw new Error("gossip node is not started");
    return this.core;
  }

  private apply(output: Output): void {
    const transport = this.transport;
    if (transport) for (const { to, packet } of output.send) transport.send(to, packet);
    for (const event of output.events) {
      if (event.type === "push-pull-complete") this.joinWaiters.get(event.seq)?.settle(true);
      else if (event.type === "user-message")
        this.emit("user-message", { origin: event.origin, payload: event.payload });
      else if (event.type === "direct-message")
        this.emit("direct-message", { from: event.from, payload: event.payload });
      else {
        if (event.type === "member-reap") this.coordinates.forget(event.member.name);
        this.emit(event.type satisfies MemberEventType, event.member);
      }
    }
    this.schedule();
  }

  private schedule(): void {
    if (!this.transport || !this.core) return;
    this.cancelTimer?.();
    const delay = Math.max(0, this.core.nextDeadline() - this.scheduler.now());
    this.cancelTimer = this.scheduler.after(delay, () => {
      this.cancelTimer = undefined;
      if (this.core && this.transport) this.apply(this.core.tick(this.scheduler.now()));
    });
  }
}
