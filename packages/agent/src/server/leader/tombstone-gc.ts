import type { Command, StateStore } from "@cairn/fsm";
import type { Logger } from "pino";

export interface TombstoneGcOptions {
  /** How long a tombstone is kept (Consul: 15 minutes). */
  ttlMs: number;
  /** Deletes within one granularity window expire together (Consul: 30 seconds). */
  granularityMs: number;
}

export const DEFAULT_TOMBSTONE_GC: TombstoneGcOptions = { ttlMs: 15 * 60_000, granularityMs: 30_000 };

/** Commands that may leave KV tombstones behind. */
const DELETING = new Set<Command["type"]>([
  "kv.delete",
  "kv.delete-tree",
  "kv.delete-cas",
  "txn",
  "session.destroy",
  "session.invalidate",
  "catalog.deregister",
]);

export interface TombstoneGcDeps {
  store: StateStore;
  /** Proposes the reap of every tombstone at or below `index`. */
  reap(index: number): Promise<void>;
  log: Logger;
  now?: () => number;
}

/**
 * The leader's tombstone collector, after Consul's: it notes the index reached in each window in which
 * something was deleted, and once a window is older than the TTL proposes a reap up to that index. Tombstones
 * keep deletes visible to blocking queries; they only have to outlive the clients' wait times.
 */
export class TombstoneGc {
  private readonly hints: Array<{ at: number; index: number }> = [];
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(
    private readonly deps: TombstoneGcDeps,
    private readonly options: TombstoneGcOptions = DEFAULT_TOMBSTONE_GC,
  ) {
    this.now = deps.now ?? Date.now;
  }

  start(): void {
    // Tombstones left by earlier leaders expire a full TTL after this one took over.
    this.dirty = true;
    this.timer = setInterval(() => this.tick(), this.options.granularityMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.hints.length = 0;
  }

  applied(command: Command): void {
    if (DELETING.has(command.type)) this.dirty = true;
  }

  /** One granularity step: record this window's hint, reap what has expired. */
  tick(): void {
    if (this.dirty) {
      this.dirty = false;
      this.hints.push({ at: this.now(), index: this.deps.store.index });
    }
    const cutoff = this.now() - this.options.ttlMs;
    let expired = 0;
    while (expired < this.hints.length && this.hints[expired]!.at <= cutoff) expired++;
    if (expired === 0) return;
    const index = this.hints[expired - 1]!.index;
    this.hints.splice(0, expired);
    this.deps.reap(index).catch((err: Error) => {
      this.deps.log.warn({ index, err: err.message }, "tombstone reap failed");
    });
  }
}
