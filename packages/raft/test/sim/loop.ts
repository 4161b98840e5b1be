import { EventQueue } from "./event-queue.js";

/** Who an event belongs to: it is void once that life ended, and waits while its process is stalled. */
export interface Owner {
  /** Whether the process this event was scheduled by (or for) can still run it. */
  readonly live: boolean;
  /** Until when the process is stalled: its events wait until then, in the order they fell due. */
  readonly pausedUntil: number;
  /** The server whose process this is, so checks can look at just the server an event touched. */
  readonly server?: string;
}

interface Scheduled {
  owner: Owner | null;
  fn: () => void;
}

/**
 * Lets every promise continuation that is ready run: Node runs the next tick only once the microtask queue
 * is empty, including what the continuations queue in turn (a macrotask would cost an event-loop turn).
 */
const drainMicrotasks = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));

/**
 * Simulated time: one queue of events for the whole world (every server's timers, disk completions, message
 * deliveries, faults, clients), run in time order. After each event every promise continuation it made ready
 * runs before the next event, so the real driver's async code advances exactly as far as simulated I/O allows.
 */
export class SimLoop {
  private readonly queue = new EventQueue<Scheduled>();
  now = 0;
  events = 0;

  at(time: number, owner: Owner | null, fn: () => void): void {
    this.queue.push(time, { owner, fn });
  }

  /** Runs events up to and including `until`; `after` runs after each one (checks) with its owner. */
  async runUntil(until: number, after?: (owner: Owner | null) => void): Promise<void> {
    // What was started before (servers opening their drivers) gets as far as it can first.
    await drainMicrotasks();
    for (;;) {
      const ev = this.queue.pop();
      if (!ev) break;
      if (ev.at > until) {
        this.queue.push(ev.at, ev.item);
        break;
      }
      this.now = ev.at;
      const { owner, fn } = ev.item;
      if (owner && !owner.live) continue;
      if (owner && owner.pausedUntil > this.now) {
        this.queue.push(owner.pausedUntil, ev.item);
        continue;
      }
      this.events++;
      fn();
      await drainMicrotasks();
      after?.(owner);
    }
    if (this.now < until) this.now = until;
  }
}
