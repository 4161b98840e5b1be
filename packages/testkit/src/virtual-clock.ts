import { EventQueue } from "./event-queue.js";

/** Cancels a timer; calling it after the timer ran, or twice, does nothing. */
export type Cancel = () => void;

/**
 * Whom a timer belongs to (a simulated process): its timers are void once that life ended, and wait while the
 * process is stalled, running when the stall ends in the order they fell due.
 */
export interface Owner {
  readonly live: boolean;
  readonly pausedUntil: number;
  /** A name for the process (a server id), so checks can look at just what an event touched. */
  readonly server?: string;
}

interface Timer {
  run: () => void;
  owner: Owner | null;
  cancelled: boolean;
}

/**
 * Lets every promise continuation that is ready run: Node runs the next tick only once the microtask queue is
 * empty, including what the continuations queue in turn (a macrotask would cost an event-loop turn).
 */
const drainMicrotasks = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));

/**
 * Virtual time for simulations: callbacks run in due order (ties in the order they were scheduled) only as the
 * test advances the clock, so a run depends on its seed alone and an hour of cluster time takes milliseconds.
 * Its `now()` and `after()` match the clock/scheduler ports of the components under test. Timers may belong to
 * an Owner (a simulated process that can crash or stall); `runUntilAsync` lets async code under test (promises)
 * advance after each timer exactly as far as simulated time allows.
 */
export class VirtualClock {
  private time: number;
  private readonly queue = new EventQueue<Timer>();
  /** Timers run so far (void and cancelled ones not counted). */
  events = 0;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  /** Runs `fn` once `delayMs` of virtual time has passed (a negative delay means now). */
  after(delayMs: number, fn: () => void, owner: Owner | null = null): Cancel {
    return this.at(this.time + Math.max(0, delayMs), fn, owner);
  }

  /** Runs `fn` at virtual time `time`, or at once on the next step when that is already past. */
  at(time: number, fn: () => void, owner: Owner | null = null): Cancel {
    const timer = this.schedule(time, fn, owner);
    return () => {
      timer.cancelled = true;
    };
  }

  /** As `at`, without making a Cancel: the simulators' hot path (every message, disk write and timer). */
  schedule(time: number, fn: () => void, owner: Owner | null = null): { cancelled: boolean } {
    const timer: Timer = { run: fn, owner, cancelled: false };
    this.queue.push(Math.max(this.time, time), timer);
    return timer;
  }

  /** Timers scheduled and not yet run (cancelled ones included until their time comes). */
  get pending(): number {
    return this.queue.size;
  }

  /** Runs the earliest timer due at or before `until`; false when there is none. */
  step(until = Number.POSITIVE_INFINITY): boolean {
    const timer = this.next(until);
    if (!timer) return false;
    timer.run();
    return true;
  }

  /** Runs every timer due up to `until` (including ones those schedule), then sets the time to `until`. */
  runUntil(until: number): void {
    while (this.step(until)) {}
    this.time = Math.max(this.time, until);
  }

  runFor(ms: number): void {
    this.runUntil(this.time + ms);
  }

  /**
   * As runUntil, but after each timer every promise continuation it made ready runs before the next timer;
   * `after` then runs (invariant checks) with the timer's owner, and what it throws ends the run.
   */
  async runUntilAsync(until: number, after?: (owner: Owner | null) => void): Promise<void> {
    // What was started before (processes opening) gets as far as it can first.
    await drainMicrotasks();
    for (;;) {
      const timer = this.next(until);
      if (!timer) break;
      timer.run();
      await drainMicrotasks();
      after?.(timer.owner);
    }
    this.time = Math.max(this.time, until);
  }

  /** The next timer to run at or before `until`, with the clock set to its time; skips void ones. */
  private next(until: number): Timer | undefined {
    for (;;) {
      if (this.queue.peekTime() > until) return undefined;
      const next = this.queue.pop();
      if (!next) return undefined;
      this.time = Math.max(this.time, next.at);
      const timer = next.item;
      if (timer.cancelled) continue;
      const owner = timer.owner;
      if (owner) {
        if (!owner.live) continue;
        if (owner.pausedUntil > this.time) {
          this.queue.push(owner.pausedUntil, timer);
          continue;
        }
      }
      this.events++;
      return timer;
    }
  }
}
