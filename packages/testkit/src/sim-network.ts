import type { Prng } from "./prng.js";
import type { Owner, VirtualClock } from "./virtual-clock.js";

export interface SimNetworkOptions {
  /** One-way delay between two addresses before jitter, in ms; 1 ms when not given. */
  latency?: (from: string, to: string) => number;
  /** Relative jitter on each message's delay: 0.1 spreads it over ±10%. */
  jitter?: number;
  /** Probability that a message (not sent as reliable) is dropped, and that a stream breaks at a chunk. */
  loss?: number;
  /** Probability that a message is held back by up to `reorderMs` more, so later ones overtake it. */
  reorder?: number;
  reorderMs?: number;
  /** Probability that a message (not sent as reliable) is delivered twice, each copy with its own delay. */
  duplicate?: number;
  /** Draws each message's delay instead of latency, jitter and reorder. */
  delay?: (prng: Prng, from: string, to: string) => number;
  /** Draws each stream chunk's delay; a message's delay when not given. */
  chunkDelay?: (prng: Prng, from: string, to: string) => number;
}

export interface SimNetworkStats {
  sent: number;
  delivered: number;
  /** Dropped at random, cut by a partition, and arrived where nobody was listening. */
  lost: number;
  partitioned: number;
  unreachable: number;
}

export interface StreamHandlers {
  /** Every chunk arrived (runs as the receiver's, once its stalls are over). */
  done: () => void;
  /** A chunk was lost, cut, or found the receiver gone or restarted (the connection broke). */
  broken: () => void;
}

type Deliver<M> = (from: string, message: M) => void;

interface Endpoint<M> {
  deliver: Deliver<M>;
  owner: Owner | null;
}

/**
 * A simulated network over virtual time: every message gets a delay (latency with jitter, sometimes held back
 * so it arrives out of order, or a delay function's), may be lost or duplicated, and never crosses a cut
 * (partitions into groups, or single links cut one way), whether the cut was there when it was sent or came
 * while it travelled. Addresses are plain strings. An endpoint attached with an Owner (a simulated process)
 * receives only while that process lives and after its stalls; a detached address swallows what arrives.
 * Beyond datagrams it models connections (`dial`, redialling across cuts) and chunked streams (`stream`).
 */
export class SimNetwork<M> {
  private readonly endpoints = new Map<string, Endpoint<M>>();
  /** Per address, the owner of what arrives there: whichever process is attached at that moment. */
  private readonly arrivals = new Map<string, Owner>();
  /** Addresses ever attached with an owner: what arrives there while nothing is attached is void. */
  private readonly owned = new Set<string>();
  private groups: Map<string, number> | undefined;
  private readonly cuts = new Set<string>();
  private options: SimNetworkOptions;
  private readonly counters: SimNetworkStats = {
    sent: 0,
    delivered: 0,
    lost: 0,
    partitioned: 0,
    unreachable: 0,
  };

  constructor(
    private readonly clock: VirtualClock,
    private readonly prng: Prng,
    options: SimNetworkOptions = {},
  ) {
    this.options = { ...options };
  }

  /**
   * Starts delivering messages for `address` to `deliver` (replacing any earlier listener there). With an
   * `owner`, deliveries wait out its stalls, and ones due while nobody is attached do not run at all.
   */
  attach(address: string, deliver: Deliver<M>, owner: Owner | null = null): void {
    this.endpoints.set(address, { deliver, owner });
    if (owner) this.owned.add(address);
  }

  /** Stops delivering to `address`; with `deliver`, only if that listener is still the attached one. */
  detach(address: string, deliver?: Deliver<M>): void {
    if (deliver && this.endpoints.get(address)?.deliver !== deliver) return;
    this.endpoints.delete(address);
  }

  isAttached(address: string): boolean {
    return this.endpoints.has(address);
  }

  /** Changes the options from now on (what is in flight keeps its delay). */
  configure(options: Partial<SimNetworkOptions>): void {
    this.options = { ...this.options, ...options };
  }

  /**
   * Sends one message; `reliable` ones (a stream such as TCP) are never lost or duplicated at random, though a
   * cut still stops them. Returns false when the message was dropped at once.
   */
  send(from: string, to: string, message: M, options: { reliable?: boolean } = {}): boolean {
    this.counters.sent++;
    if (!this.connected(from, to)) {
      this.counters.partitioned++;
      return false;
    }
    const { loss = 0, duplicate = 0 } = this.options;
    if (!options.reliable && loss > 0 && this.prng.chance(loss)) {
      this.counters.lost++;
      return false;
    }
    this.deliverLater(from, to, message);
    if (!options.reliable && duplicate > 0 && this.prng.chance(duplicate))
      this.deliverLater(from, to, message);
    return true;
  }

  /**
   * A connection from `from` to `to`: after one delay it is up at `to` and `connected` runs there, unless
   * `wanted` says the dialler gave up; while the link is cut it redials every `retryMs`.
   */
  dial(from: string, to: string, connected: () => void, wanted: () => boolean, retryMs: number): void {
    this.clock.after(
      this.delay(from, to),
      () => {
        if (!wanted()) return;
        if (!this.connected(from, to)) {
          this.clock.after(retryMs, () => this.dial(from, to, connected, wanted, retryMs));
          return;
        }
        connected();
      },
      this.arrival(to),
    );
  }

  /**
   * A stream of 1 to `maxChunks` chunks from `from` to whatever is attached at `to` now: each chunk travels
   * with a delay and may be lost or cut; one that finds that listener gone or replaced breaks the stream.
   */
  stream(from: string, to: string, maxChunks: number, handlers: StreamHandlers): void {
    const receiver = this.endpoints.get(to);
    if (!receiver) {
      handlers.broken();
      return;
    }
    const chunks = this.prng.int(1, maxChunks);
    const owner = this.streamOwner(to);
    let received = 0;
    const chunk = () => {
      const loss = this.options.loss ?? 0;
      if (
        this.endpoints.get(to) !== receiver ||
        !this.connected(from, to) ||
        (loss > 0 && this.prng.chance(loss))
      )
        return handlers.broken();
      if (++received === chunks) return handlers.done();
      this.clock.after(this.chunkDelay(from, to), chunk, owner);
    };
    this.clock.after(this.chunkDelay(from, to), chunk, owner);
  }

  /** Splits the addresses into groups that cannot reach each other until `heal()`; unlisted ones are cut off. */
  partition(groups: readonly (readonly string[])[]): void {
    const next = new Map<string, number>();
    groups.forEach((group, index) => {
      for (const address of group) next.set(address, index);
    });
    this.groups = next;
  }

  /** Cuts the link from `from` to `to` one way (until `heal()`); the other direction keeps working. */
  cut(from: string, to: string): void {
    this.cuts.add(`${from}>${to}`);
  }

  /** Undoes every partition and cut. */
  heal(): void {
    this.groups = undefined;
    this.cuts.clear();
  }

  setLoss(probability: number): void {
    this.options.loss = probability;
  }

  /** Whether a message from `from` could reach `to` now. */
  connected(from: string, to: string): boolean {
    if (from === to) return true;
    if (this.cuts.size > 0 && this.cuts.has(`${from}>${to}`)) return false;
    if (!this.groups) return true;
    const a = this.groups.get(from);
    return a !== undefined && a === this.groups.get(to);
  }

  stats(): SimNetworkStats {
    return { ...this.counters };
  }

  /** One message's delay from `from` to `to`, drawn now. */
  delay(from: string, to: string): number {
    const o = this.options;
    if (o.delay) return o.delay(this.prng, from, to);
    const base = o.latency?.(from, to) ?? 1;
    const jitter = o.jitter ?? 0;
    let delay = base * (1 + (this.prng.next() * 2 - 1) * jitter);
    const reorder = o.reorder ?? 0;
    if (reorder > 0 && this.prng.chance(reorder)) delay += this.prng.next() * (o.reorderMs ?? 10 * base);
    return Math.max(0, delay);
  }

  private chunkDelay(from: string, to: string): number {
    const draw = this.options.chunkDelay;
    return draw ? draw(this.prng, from, to) : this.delay(from, to);
  }

  private deliverLater(from: string, to: string, message: M): void {
    this.clock.schedule(
      this.clock.now() + this.delay(from, to),
      () => {
        if (!this.connected(from, to)) {
          this.counters.partitioned++;
          return;
        }
        const endpoint = this.endpoints.get(to);
        if (!endpoint) {
          this.counters.unreachable++;
          return;
        }
        this.counters.delivered++;
        endpoint.deliver(from, message);
      },
      this.arrival(to),
    );
  }

  /** What arrives at `to` waits out the stall of the process attached there then, and is void while none is. */
  private arrival(to: string): Owner | null {
    let owner = this.arrivals.get(to);
    if (!owner) {
      const { endpoints, owned } = this;
      owner = {
        get live() {
          return endpoints.has(to) || !owned.has(to);
        },
        get pausedUntil() {
          return endpoints.get(to)?.owner?.pausedUntil ?? 0;
        },
        server: to,
      };
      this.arrivals.set(to, owner);
    }
    return owner;
  }

  /** A stream's chunks run even when the receiver is gone (to notice it broke), after its stalls. */
  private streamOwner(to: string): Owner {
    const endpoints = this.endpoints;
    return {
      live: true,
      get pausedUntil() {
        return endpoints.get(to)?.owner?.pausedUntil ?? 0;
      },
      server: to,
    };
  }
}
