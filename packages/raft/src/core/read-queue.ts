import type { NodeId } from "./types.js";

/** A read waiting for the leader to confirm it still leads. `from` is the leader itself or a follower. */
export interface QueuedRead {
  ctx: string;
  from: NodeId;
  lease: boolean;
}

interface RoundRead extends QueuedRead {
  seq: number;
  index: number;
}

/**
 * The leader's ReadIndex bookkeeping. Each read joins a numbered heartbeat round; heartbeats carry the
 * latest round number and followers echo it, so once a quorum echoed round n, every read of a round <= n
 * was registered while this server still led, and may be answered with the commit index it recorded.
 */
export class ReadQueue {
  private seq = 0;
  /** Reads joined a round that has not been broadcast yet (it opens at the next startRound). */
  private open = false;
  private rounds: RoundRead[] = [];
  /** Reads that came before this leader committed an entry of its term: its commit index may still lag. */
  private early: QueuedRead[] = [];

  /** The round number heartbeats carry now (the last started round). */
  get latestRound(): number {
    return this.seq;
  }

  /** Park a read until the leader's first commit of its term. */
  defer(r: QueuedRead): void {
    this.early.push(r);
  }

  /** Reads parked by `defer`, removed from the queue. */
  takeDeferred(): QueuedRead[] {
    const out = this.early;
    this.early = [];
    return out;
  }

  /** Add a read of `index` to the next round; all reads until startRound() share one heartbeat broadcast. */
  join(r: QueuedRead, index: number): void {
    this.rounds.push({ ...r, seq: this.seq + 1, index });
    this.open = true;
  }

  hasOpenRound(): boolean {
    return this.open;
  }

  /** Start the round reads joined since the last call; returns false when none did (nothing to broadcast). */
  startRound(): boolean {
    if (!this.open) return false;
    this.open = false;
    this.seq++;
    return true;
  }

  /** Reads whose round a quorum confirmed (`confirmed` is the quorum's echoed round), removed from the queue. */
  release(confirmed: number): { ctx: string; from: NodeId; index: number }[] {
    let k = 0;
    while (k < this.rounds.length && this.rounds[k]!.seq <= confirmed) k++;
    return k === 0 ? [] : this.rounds.splice(0, k);
  }

  /** Everything still queued (the leader is stepping down), removed from the queue. */
  drain(): QueuedRead[] {
    const out: QueuedRead[] = [...this.rounds, ...this.early];
    this.rounds = [];
    this.early = [];
    this.open = false;
    return out;
  }
}
