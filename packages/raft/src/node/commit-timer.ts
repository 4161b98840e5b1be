import type { Entry } from "../core/types.js";

/** What a driver reports to whoever measures it (metrics); every hook optional, all times in ms. */
export interface RaftObserver {
  /** Entries proposed here were committed; latency from the oldest one's proposal to its commit. */
  committed?(entries: number, latencyMs: number): void;
  /** One fsynced log write took this long. */
  fsynced?(ms: number): void;
}

/** Proposal times by log index, so a commit can be told how long it took (the leader's `commitTime`). */
export class CommitTimer {
  private readonly proposedAt = new Map<number, number>();

  constructor(
    private readonly observer: RaftObserver,
    private readonly now: () => number,
  ) {}

  proposed(index: number): void {
    this.proposedAt.set(index, this.now());
  }

  /** A Ready's committed entries; times left for indexes at or below them are dropped (never committed ours). */
  committed(entries: readonly Entry[]): void {
    const last = entries[entries.length - 1];
    if (last === undefined || this.proposedAt.size === 0) return;
    let count = 0;
    let oldest = Number.POSITIVE_INFINITY;
    for (const [index, at] of this.proposedAt) {
      if (index > last.index) continue;
      this.proposedAt.delete(index);
      count++;
      if (at < oldest) oldest = at;
    }
    if (count > 0) this.observer.committed?.(count, this.now() - oldest);
  }
}
