import type { Coordinate } from "@cairn/gossip";
import type { Logger } from "pino";

export interface CoordinateUpdate {
  Node: string;
  Segment?: string;
  Coord: Coordinate;
}

/** Timers, injectable so tests can step time. */
export interface SenderClock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface CoordinateSenderOptions {
  node: string;
  segment?: string;
  /** This agent's current LAN coordinate. */
  coordinate: () => Coordinate;
  /** Members of the LAN pool: the interval grows with it so the servers see a bounded update rate. */
  clusterSize: () => number;
  /** Delivers one update to the servers (the coordinate update path, batched into Raft there). */
  send: (update: CoordinateUpdate) => Promise<void>;
  log: Logger;
  clock?: SenderClock;
  random?: () => number;
  /** Consul's sync_coordinate_interval_min: 15 s. */
  minIntervalMs?: number;
  /** Consul's sync_coordinate_rate_target: 64 updates per second across the cluster. */
  rateTarget?: number;
}

const realClock: SenderClock = {
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Consul's lib.RateScaledInterval plus RandomStagger: at least `minMs`, longer once `n` agents each sending
 * would exceed `rate` updates per second, then staggered by up to as much again so agents spread out.
 */
export function coordinateInterval(minMs: number, rate: number, n: number, random: number): number {
  const base = Math.max(minMs, (n / rate) * 1000);
  return base + Math.floor(random * base);
}

/** Periodically sends this agent's Vivaldi coordinate to the servers, as Consul's agent.sendCoordinate. */
export class CoordinateSender {
  private timer: unknown;
  private running = false;
  private readonly clock: SenderClock;
  private readonly random: () => number;

  constructor(private readonly options: CoordinateSenderOptions) {
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    const { minIntervalMs = 15_000, rateTarget = 64, clusterSize } = this.options;
    const interval = coordinateInterval(minIntervalMs, rateTarget, clusterSize(), this.random());
    this.timer = this.clock.setTimeout(() => void this.tick(), interval);
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.running) return;
    const { node, segment, coordinate, send, log } = this.options;
    const update: CoordinateUpdate = { Node: node, Coord: coordinate() };
    if (segment !== undefined) update.Segment = segment;
    try {
      await send(update);
    } catch (err) {
      const message = (err as Error).message;
      if (/permission denied/i.test(message)) log.warn("coordinate update blocked by ACLs");
      else log.error({ err: message }, "coordinate update error");
    }
    if (this.running) this.schedule();
  }
}
