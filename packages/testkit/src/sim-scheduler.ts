import type { Owner, VirtualClock } from "./virtual-clock.js";

type Timer = { cancelled: boolean };

/**
 * One simulated process's timers and clock (the setTimeout/setInterval/setImmediate shape of Node's, as
 * raft's Scheduler port has it) on a VirtualClock. Its timers die with the process (a crash) and wait out its
 * stalls; an interval that fell due several times during a stall fires once, late, as the event loop's does.
 * `lag` holds the clock back (a process that does not notice stalled time).
 */
export class SimScheduler {
  constructor(
    private readonly clock: VirtualClock,
    private readonly owner: Owner,
    private readonly lag: () => number = () => 0,
  ) {}

  now(): number {
    return this.clock.now() - this.lag();
  }

  setTimeout(fn: () => void, ms: number): Timer {
    return this.clock.schedule(this.clock.now() + ms, fn, this.owner);
  }

  clearTimeout(handle: unknown): void {
    (handle as Timer).cancelled = true;
  }

  setInterval(fn: () => void, ms: number): Timer {
    const t: Timer = { cancelled: false };
    const fire = () => {
      if (t.cancelled) return;
      this.clock.schedule(this.clock.now() + ms, fire, this.owner);
      fn();
    };
    this.clock.schedule(this.clock.now() + ms, fire, this.owner);
    return t;
  }

  clearInterval(handle: unknown): void {
    (handle as Timer).cancelled = true;
  }

  setImmediate(fn: () => void): void {
    this.clock.schedule(this.clock.now(), fn, this.owner);
  }
}
