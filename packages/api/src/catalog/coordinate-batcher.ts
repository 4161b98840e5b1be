import type { CoordinateUpdate } from "@cairn/fsm";

/** Updates per Raft entry, and entries per period, as Consul's coordinate_update_batch_size / max_batches. */
export const COORDINATE_BATCH_SIZE = 128;
export const COORDINATE_MAX_BATCHES = 5;

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref(); // pending updates never keep a process alive
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * Collects coordinate updates and sends them to Raft in batches, as Consul's servers do: within one period
 * the latest update per node and segment wins; when the period ends they go out as commands of at most
 * COORDINATE_BATCH_SIZE updates, at most COORDINATE_MAX_BATCHES of them, and any excess is dropped (agents
 * send again next round). A quiet cluster costs nothing: the period timer runs only while updates wait.
 * `send` reports its own failures (a lost batch is only a missed round, as in Consul).
 */
export class CoordinateBatcher {
  readonly #pending = new Map<string, CoordinateUpdate>();
  #timer: unknown;

  constructor(
    private readonly send: (updates: readonly CoordinateUpdate[]) => Promise<void>,
    private readonly periodMs: number,
    private readonly onDropped: (count: number) => void = () => {},
    private readonly timers: Timers = realTimers,
  ) {}

  add(update: CoordinateUpdate): void {
    this.#pending.set(`${update.Node}\u0000${update.Segment ?? ""}`, update);
    if (this.#timer === undefined)
      this.#timer = this.timers.setTimeout(() => void this.flush(), this.periodMs);
  }

  /** Sends what is pending now; resolves when every batch has been applied. */
  async flush(): Promise<void> {
    if (this.#timer !== undefined) this.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    const updates = [...this.#pending.values()];
    this.#pending.clear();
    const limit = COORDINATE_BATCH_SIZE * COORDINATE_MAX_BATCHES;
    if (updates.length > limit) this.onDropped(updates.length - limit);
    for (let i = 0; i < Math.min(updates.length, limit); i += COORDINATE_BATCH_SIZE) {
      await this.send(updates.slice(i, i + COORDINATE_BATCH_SIZE));
    }
  }
}
