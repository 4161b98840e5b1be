import { type Owner, type Prng, SimNetwork, type VirtualClock } from "@cairn/testkit";
import type { Message, NodeId } from "../../src/core/types.js";
import type { Transport, TransportInbound } from "../../src/node/ports.js";

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
 * The servers' Raft messages on the test kit's simulated network (loss, duplication, delay, one-way cuts,
 * chunked streams): a server's address is its id; a message goes to whatever process runs there when it
 * arrives. This adds what is Raft's own: the conditions a simulation picks, the hooks its checks use, and the
 * links' hello when a peer (re)starts.
 */
export class SimRaftNetwork {
  readonly net: SimNetwork<Message>;
  private current: NetworkConditions = { drop: 0, dup: 0, minDelay: 1, maxDelay: 20, linger: 0 };
  /** Told of every message a driver sends, before the network gets it (the checker). */
  onSend: (from: NodeId, m: Message) => void = () => {};
  /** Told of every message delivered (the trace). */
  onDeliver: (m: Message) => void = () => {};
  private readonly hosts = new Map<NodeId, NetworkHost>();
  private readonly transports = new Set<SimTransport>();

  constructor(
    readonly clock: VirtualClock,
    prng: Prng,
    readonly tick: number,
  ) {
    this.net = new SimNetwork<Message>(clock, prng);
    this.conditions = this.current;
  }

  get conditions(): NetworkConditions {
    return this.current;
  }

  set conditions(c: NetworkConditions) {
    this.current = c;
    const tick = this.tick;
    this.net.configure({
      loss: c.drop,
      duplicate: c.dup,
      delay: (r) =>
        c.linger > 0 && r.chance(c.linger) ? r.int(tick, 40 * tick) : r.int(c.minDelay, c.maxDelay),
      // A snapshot's chunks share the link's connection with its messages and arrive in order, so one cannot
      // be held back for seconds while the heartbeats sent after it get through (a stalled connection is
      // torn down by its keep-alive, and the stream fails). Lingering chunks made a stream outlast the quiet
      // period before the final checks (seed 114000417). The same draws as a message's, so that seeds whose
      // chunks never lingered run exactly as before.
      chunkDelay: (r) => {
        if (c.linger > 0) r.chance(c.linger);
        return r.int(c.minDelay, c.maxDelay);
      },
    });
  }

  add(host: NetworkHost): void {
    this.hosts.set(host.id, host);
  }

  /** A process's transport; links it holds redial (and introduce themselves) when their peer restarts. */
  register(t: SimTransport): void {
    this.transports.add(t);
  }

  /** `host` started a process: it receives from now on, and every live link to it connects again. */
  started(host: NetworkHost): void {
    const process = host.process!;
    this.net.attach(
      host.id,
      (from, m) => {
        this.onDeliver(m);
        process.inbound.onMessages(from, [m]);
      },
      process.owner,
    );
    for (const t of this.transports) {
      if (!t.live) this.transports.delete(t);
      else if (t.hasPeer(host.id)) this.hello(t, host.id);
    }
  }

  /** `host`'s process ended: nothing more reaches it. */
  stopped(host: NetworkHost): void {
    this.net.detach(host.id);
  }

  /**
   * A link connected: it introduces itself with its address, so the peer can answer even before it learns
   * of this server as a member (the real transport's hello). A cut link keeps redialling.
   */
  hello(from: SimTransport, to: NodeId): void {
    const host = this.hosts.get(to);
    if (!host) return;
    this.net.dial(
      from.address,
      to,
      () => host.process?.inbound.onPeerAddress(from.address, from.address),
      () => from.live && from.hasPeer(to),
      5 * this.tick,
    );
  }

  send(from: NodeId, m: Message): void {
    this.onSend(from, m);
    if (this.hosts.has(m.to)) this.net.send(from, m.to, m);
  }

  /**
   * The snapshot file travels as chunks, each exposed to loss and cuts; the receiver's driver takes it
   * once all arrived, and the sender hears it succeeded once the receiver has it durably.
   */
  streamSnapshot(from: NetworkHost, fromOwner: Owner, m: Message, path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const toProcess = this.hosts.get(m.to)?.process;
      const bytes = from.files.get(path);
      const fail = (why: string) => this.clock.after(5 * this.tick, () => reject(new Error(why)), fromOwner);
      if (!toProcess || !bytes) return fail("cannot stream");
      this.net.stream(from.id, m.to, 4, {
        broken: () => fail("stream broken"),
        done: () => {
          toProcess.inbound
            .onSnapshot(from.id, m, bytes.byteLength)
            .then(async (sink) => {
              await sink.write(bytes);
              await sink.commit();
            })
            .then(
              () => this.clock.after(this.net.delay(m.to, from.id), () => resolve(), fromOwner),
              (err: Error) => fail(err.message),
            );
        },
      });
    });
  }
}

/** One process's Transport port on the simulated network. */
export class SimTransport implements Transport {
  private inbound: TransportInbound | undefined;
  private readonly links = new Map<NodeId, string>();

  constructor(
    private readonly network: SimRaftNetwork,
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
    return this.links.has(peer) && this.network.net.connected(this.host.id, peer);
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
