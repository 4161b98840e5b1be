import type { Message, NodeId } from "../../src/core/types.js";
import type { Transport, TransportInbound } from "../../src/node/ports.js";
import type { Owner, SimLoop } from "./loop.js";
import type { Prng } from "./prng.js";

/** What the network needs to know of a server: its current process, if it runs. */
export interface NetworkHost {
  readonly id: NodeId;
  /** The running process: its inbound side and the owner its events belong to; null when down. */
  readonly process: { inbound: TransportInbound; owner: Owner } | null;
  /** Snapshot file contents on its disk, by path. */
  readonly files: ReadonlyMap<string, Uint8Array>;
}

export interface NetworkConditions {
  drop: number;
  dup: number;
  minDelay: number;
  maxDelay: number;
  /** Chance that a message lingers for 1 to 40 ticks instead. */
  linger: number;
}

/**
 * The simulated network between servers: every message is exposed to loss, duplication, delay (now and then
 * a very long one, so it arrives stale and out of order) and to cuts (partitions, one-way or both ways).
 * A message is delivered to whatever process runs at its destination when it arrives.
 */
export class SimNetwork {
  readonly cut = new Set<string>();
  conditions: NetworkConditions = { drop: 0, dup: 0, minDelay: 1, maxDelay: 20, linger: 0 };
  /** Told of every message a driver sends, before the network gets it (the checker). */
  onSend: (from: NodeId, m: Message) => void = () => {};
  /** Told of every message delivered (the trace). */
  onDeliver: (m: Message) => void = () => {};
  private readonly hosts = new Map<NodeId, NetworkHost>();
  private readonly transports = new Set<SimTransport>();

  constructor(
    private readonly loop: SimLoop,
    private readonly rng: Prng,
    private readonly tick: number,
  ) {}

  add(host: NetworkHost): void {
    this.hosts.set(host.id, host);
  }

  /** A process's transport; links it holds redial (and introduce themselves) when their peer restarts. */
  register(t: SimTransport): void {
    this.transports.add(t);
  }

  /** `host` started a process: every live link to it connects again and says hello. */
  started(host: NetworkHost): void {
    for (const t of this.transports) {
      if (!t.live) this.transports.delete(t);
      else if (t.hasPeer(host.id)) this.hello(t, host.id);
    }
  }

  /**
   * A link connected: it introduces itself with its address, so the peer can answer even before it learns
   * of this server as a member (the real transport's hello). A cut link keeps redialling.
   */
  hello(from: SimTransport, to: NodeId): void {
    const host = this.hosts.get(to);
    if (!host) return;
    this.loop.at(this.loop.now + this.delay(), destination(host), () => {
      if (!from.live || !from.hasPeer(to)) return;
      if (this.isCut(from.address, to))
        return this.loop.at(this.loop.now + 5 * this.tick, null, () => this.hello(from, to));
      host.process?.inbound.onPeerAddress(from.address, from.address);
    });
  }

  isCut(from: NodeId, to: NodeId): boolean {
    return this.cut.has(`${from}>${to}`);
  }

  delay(): number {
    const r = this.rng;
    const c = this.conditions;
    return c.linger > 0 && r.chance(c.linger)
      ? r.int(this.tick, 40 * this.tick)
      : r.int(c.minDelay, c.maxDelay);
  }

  send(from: NodeId, m: Message): void {
    this.onSend(from, m);
    if (this.isCut(from, m.to) || this.rng.chance(this.conditions.drop)) return;
    this.deliverLater(m);
    if (this.rng.chance(this.conditions.dup)) this.deliverLater(m);
  }

  private deliverLater(m: Message): void {
    const to = this.hosts.get(m.to);
    if (!to) return;
    this.loop.at(this.loop.now + this.delay(), destination(to), () => {
      if (this.isCut(m.from, m.to)) return;
      this.onDeliver(m);
      to.process?.inbound.onMessages(m.from, [m]);
    });
  }

  /**
   * The snapshot file travels as chunks, each exposed to loss and cuts; the receiver's driver takes it
   * once all arrived, and the sender hears it succeeded once the receiver has it durably.
   */
  streamSnapshot(from: NetworkHost, fromOwner: Owner, m: Message, path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const to = this.hosts.get(m.to);
      const toProcess = to?.process;
      const bytes = from.files.get(path);
      const fail = (why: string) =>
        this.loop.at(this.loop.now + 5 * this.tick, fromOwner, () => reject(new Error(why)));
      if (!to || !toProcess || !bytes) return fail("cannot stream");
      const chunks = this.rng.int(1, 4);
      // A chunk that finds the receiver down or restarted fails the stream (the connection broke).
      const dest = destination(to, true);
      let received = 0;
      const chunk = () => {
        const lost =
          to.process !== toProcess || this.isCut(from.id, to.id) || this.rng.chance(this.conditions.drop);
        if (lost) return fail("stream broken");
        if (++received < chunks) {
          this.loop.at(this.loop.now + this.rng.int(1, this.conditions.maxDelay), dest, chunk);
          return;
        }
        toProcess.inbound
          .onSnapshot(from.id, m, bytes.byteLength)
          .then(async (sink) => {
            await sink.write(bytes);
            await sink.commit();
          })
          .then(
            () =>
              this.loop.at(this.loop.now + this.rng.int(1, this.conditions.maxDelay), fromOwner, () =>
                resolve(),
              ),
            (err: Error) => fail(err.message),
          );
      };
      this.loop.at(this.loop.now + this.delay(), dest, chunk);
    });
  }
}

/** What arrives at `to` belongs to whichever process runs there then: it waits out that process's stall. */
function destination(to: NetworkHost, evenWhenDown = false): Owner {
  const cache = evenWhenDown ? streamOwners : deliveryOwners;
  let owner = cache.get(to);
  if (!owner) {
    owner = {
      get live() {
        return evenWhenDown || to.process !== null;
      },
      get pausedUntil() {
        return to.process?.owner.pausedUntil ?? 0;
      },
      server: to.id,
    };
    cache.set(to, owner);
  }
  return owner;
}

const deliveryOwners = new WeakMap<NetworkHost, Owner>();
const streamOwners = new WeakMap<NetworkHost, Owner>();

/** One process's Transport port on the simulated network. */
export class SimTransport implements Transport {
  private inbound: TransportInbound | undefined;
  private readonly links = new Map<NodeId, string>();

  constructor(
    private readonly network: SimNetwork,
    private readonly host: NetworkHost,
    private readonly owner: Owner,
  ) {
    network.register(this);
  }

  get live(): boolean {
    return this.owner.live;
  }

  get address(): string {
    return this.host.id;
  }

  get attached(): TransportInbound | undefined {
    return this.inbound;
  }

  attach(inbound: TransportInbound): void {
    this.inbound = inbound;
  }

  setPeer(id: NodeId, address: string): void {
    if (id === this.host.id) return;
    const known = this.links.has(id);
    this.links.set(id, address);
    if (!known) this.network.hello(this, id);
  }

  removePeer(id: NodeId): void {
    this.links.delete(id);
  }

  hasPeer(id: NodeId): boolean {
    return this.links.has(id);
  }

  peers(): NodeId[] {
    return [...this.links.keys()];
  }

  isConnected(peer: NodeId): boolean {
    return this.links.has(peer) && !this.network.isCut(this.host.id, peer);
  }

  send(peer: NodeId, message: Message): void {
    if (!this.links.has(peer)) this.inbound?.onUnreachable(peer);
    else this.network.send(this.host.id, message);
  }

  sendSnapshot(peer: NodeId, message: Message, path: string): Promise<void> {
    if (!this.links.has(peer)) return Promise.reject(new Error(`unknown peer ${peer}`));
    return this.network.streamSnapshot(this.host, this.owner, message, path);
  }

  async close(): Promise<void> {
    this.links.clear();
  }
}
