import { EventQueue } from "./event-queue.js";

/** Cancels a timer; calling it after the timer ran, or twice, does nothing. */
export type Cancel = () => void;

interface Timer {
  run: () => void;
  cancelled: boolean;
}

/**
 * Virtual time for simulations: callbacks run in due order (ties in the order they were scheduled) only as the
 * test advances the clock, so a run depends on its seed alone and an hour of cluster time takes milliseconds.
 * Its `now()` and `after()` match the clock/scheduler ports of the components under test.
 */
export class VirtualClock {
  private time: number;
  private readonly queue = new EventQueue<Timer>();

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  /** Runs `fn` once `delayMs` of virtual time has passed (a negative delay means now). */
  after(delayMs: number, fn: () => void): Cancel {
    return this.at(this.time + Math.max(0, delayMs), fn);
  }

  /** Runs `fn` at virtual time `time`, or at once on the next step when that is already past. */
  at(time: number, fn: () => void): Cancel {
    const timer: Timer = { run: fn, cancelled: false };
    this.queue.push(Math.max(this.time, time), timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Timers scheduled and not yet run (cancelled ones included until their time comes). */
  get pending(): number {
    return this.queue.size;
  }

  /** Runs the earliest timer due at or before `until`; false when there is none. */
  step(until = Number.POSITIVE_INFINITY): boolean {
    for (;;) {
      if (this.queue.peekTime() > until) return false;
      const next = this.queue.pop();
      if (!next) return false;
      this.time = Math.max(this.time, next.at);
      if (next.item.cancelled) continue;
      next.item.run();
      return true;
    }
  }

  /** Runs every timer due up to `until` (including ones those schedule), then sets the time to `until`. */
  runUntil(until: number): void {
    while (this.step(until)) {}
    this.time = Math.max(this.time, until);
  }

  runFor(ms: number): void {
    this.runUntil(this.time + ms);
  }
}
