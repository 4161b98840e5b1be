import type { Prng } from "./prng.js";
import type { VirtualClock } from "./virtual-clock.js";

export interface SimNetworkOptions {
  /** One-way delay between two addresses before jitter, in ms; 1 ms when not given. */
  latency?: (from: string, to: string) => number;
  /** Relative jitter on each message's delay: 0.1 spreads it over ±10%. */
  jitter?: number;
  /** Probability that a message (not sent as reliable) is dropped. */
  loss?: number;
  /** Probability that a message is held back by up to `reorderMs` more, so later ones overtake it. */
  reorder?: number;
  reorderMs?: number;
}

export interface SimNetworkStats {
  sent: number;
  delivered: number;
  /** Dropped at random, cut by a partition, and arrived where nobody was listening. */
  lost: number;
  partitioned: number;
  unreachable: number;
}

type Deliver<M> = (from: string, message: M) => void;

/**
 * A simulated datagram network over virtual time: every message gets a delay (latency with jitter, sometimes
 * held back so it arrives out of order), may be lost, and never crosses a partition. Addresses are plain
 * strings; a detached address (a crashed process) silently swallows what arrives for it.
 */
export class SimNetwork<M> {
  private readonly endpoints = new Map<string, Deliver<M>>();
  private groups: Map<string, number> | undefined;
  private loss: number;
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
    private readonly options: SimNetworkOptions = {},
  ) {
    this.loss = options.loss ?? 0;
  }

  /** Starts delivering messages for `address` to `deliver` (replacing any earlier listener there). */
  attach(address: string, deliver: Deliver<M>): void {
    this.endpoints.set(address, deliver);
  }

  detach(address: string): void {
    this.endpoints.delete(address);
  }

  isAttached(address: string): boolean {
    return this.endpoints.has(address);
  }

  /**
   * Sends one message; `reliable` ones (a stream such as TCP) are never lost at random, though a partition
   * still cuts them. Returns false when the message was dropped at once.
   */
  send(from: string, to: string, message: M, options: { reliable?: boolean } = {}): boolean {
    this.counters.sent++;
    if (!this.connected(from, to)) {
      this.counters.partitioned++;
      return false;
    }
    if (!options.reliable && this.loss > 0 && this.prng.chance(this.loss)) {
      this.counters.lost++;
      return false;
    }
    this.clock.after(this.delay(from, to), () => {
      const deliver = this.endpoints.get(to);
      if (!deliver) {
        this.counters.unreachable++;
        return;
      }
      this.counters.delivered++;
      deliver(from, message);
    });
    return true;
  }

  /** Splits the addresses into groups that cannot reach each other until `heal()`; unlisted ones are cut off. */
  partition(groups: readonly (readonly string[])[]): void {
    const next = new Map<string, number>();
    groups.forEach((group, index) => {
      for (const address of group) next.set(address, index);
    });
    this.groups = next;
  }

  heal(): void {
    this.groups = undefined;
  }

  setLoss(probability: number): void {
    this.loss = probability;
  }

  /** Whether a message from `from` could reach `to` now. */
  connected(from: string, to: string): boolean {
    if (!this.groups || from === to) return true;
    const a = this.groups.get(from);
    return a !== undefined && a === this.groups.get(to);
  }

  stats(): SimNetworkStats {
    return { ...this.counters };
  }

  private delay(from: string, to: string): number {
    const base = this.options.latency?.(from, to) ?? 1;
    const jitter = this.options.jitter ?? 0;
    let delay = base * (1 + (this.prng.next() * 2 - 1) * jitter);
    const reorder = this.options.reorder ?? 0;
    if (reorder > 0 && this.prng.chance(reorder))
      delay += this.prng.next() * (this.options.reorderMs ?? 10 * base);
    return Math.max(0, delay);
  }
}
