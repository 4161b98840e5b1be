import type { Scheduler } from "../../src/node/ports.js";
import type { Owner, SimLoop } from "./loop.js";

interface Timer {
  cancelled: boolean;
}

/**
 * One server process's timers and clock on simulated time. Its events die with the process (a crash) and
 * wait out its stalls; an interval that fell due several times during a stall fires once, late, as the
 * event loop's does. `lag` holds the clock back (see SimServer's non-compensating mode).
 */
export class SimScheduler implements Scheduler {
  constructor(
    private readonly loop: SimLoop,
    private readonly owner: Owner,
    private readonly lag: () => number = () => 0,
  ) {}

  now(): number {
    return this.loop.now - this.lag();
  }

  setTimeout(fn: () => void, ms: number): Timer {
    const t: Timer = { cancelled: false };
    this.loop.at(this.loop.now + ms, this.owner, () => {
      if (!t.cancelled) fn();
    });
    return t;
  }

  clearTimeout(handle: unknown): void {
    (handle as Timer).cancelled = true;
  }

  setInterval(fn: () => void, ms: number): Timer {
    const t: Timer = { cancelled: false };
    const fire = () => {
      if (t.cancelled) return;
      this.loop.at(this.loop.now + ms, this.owner, fire);
      fn();
    };
    this.loop.at(this.loop.now + ms, this.owner, fire);
    return t;
  }

  clearInterval(handle: unknown): void {
    (handle as Timer).cancelled = true;
  }

  setImmediate(fn: () => void): void {
    this.loop.at(this.loop.now, this.owner, fn);
  }
}
