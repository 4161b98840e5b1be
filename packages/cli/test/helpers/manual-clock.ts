// A Clock that moves only when the test says so: timers fire in deadline order on advance().
import type { Clock, Deadline } from "../../src/clock.js";

interface Timer {
  at: number;
  fire: () => void;
}

export class ManualClock implements Clock {
  now = 0;
  private timers = new Set<Timer>();

  sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer: Timer = { at: this.now + ms, fire: () => resolve(true) };
      this.timers.add(timer);
      signal.addEventListener(
        "abort",
        () => {
          this.timers.delete(timer);
          resolve(false);
        },
        { once: true },
      );
    });
  }

  deadline(ms: number): Deadline {
    const controller = new AbortController();
    const timer: Timer = { at: this.now + ms, fire: () => controller.abort(new Error("timeout")) };
    this.timers.add(timer);
    return { signal: controller.signal, cancel: () => this.timers.delete(timer) };
  }

  /** Timers still set, for asserting that nothing is left waiting. */
  get pending(): number {
    return this.timers.size;
  }

  advance(ms: number): void {
    this.now += ms;
    const due = [...this.timers].filter((t) => t.at <= this.now).sort((a, b) => a.at - b.at);
    for (const t of due) {
      this.timers.delete(t);
      t.fire();
    }
  }
}
