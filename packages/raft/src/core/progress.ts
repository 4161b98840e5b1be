import type { ProgressState, ProgressStatus } from "./types.js";

/**
 * The leader's view of one follower. probe: one append at a time until the match point is found;
 * replicate: pipelined appends, at most `maxInflight` unacknowledged; snapshot: waiting for a snapshot
 * stream to finish (reportSnapshot) or for an ack at/after it.
 */
export class Progress {
  match = 0;
  next: number;
  state: ProgressState = "probe";
  /** Probe state: an append is outstanding, so wait for its answer (or the next heartbeat answer). */
  probeSent = false;
  /** Heard from since the last CheckQuorum round. */
  recentActive = true;
  /** Last indexes of the appends in flight (replicate state), oldest first. */
  inflights: number[] = [];
  pendingSnapshot = 0;
  /** Freshest leader send-time this follower acknowledged (for the read lease). */
  ackedSent = Number.NEGATIVE_INFINITY;
  /** Since when (leader tick) `match` has stayed at `stallMatch` while the follower is behind. */
  stallSince: number | null = null;
  stallMatch = 0;
  /** Highest ReadIndex round this follower confirmed. */
  readAck = 0;

  constructor(
    next: number,
    private readonly maxInflight: number,
  ) {
    this.next = next;
  }

  isPaused(): boolean {
    switch (this.state) {
      case "probe":
        return this.probeSent;
      case "replicate":
        return this.inflights.length >= this.maxInflight;
      case "snapshot":
        return true;
    }
  }

  becomeProbe(): void {
    // After a snapshot, resume right after it: the follower has everything it covered.
    this.next =
      this.state === "snapshot" ? Math.max(this.match + 1, this.pendingSnapshot + 1) : this.match + 1;
    this.state = "probe";
    this.probeSent = false;
    this.inflights = [];
    this.pendingSnapshot = 0;
  }

  becomeReplicate(): void {
    this.state = "replicate";
    this.next = this.match + 1;
    this.probeSent = false;
    this.inflights = [];
    this.pendingSnapshot = 0;
  }

  becomeSnapshot(index: number): void {
    this.state = "snapshot";
    this.pendingSnapshot = index;
    this.inflights = [];
  }

  /** An accepted append through `index`. Returns whether it taught us anything new. */
  maybeUpdate(index: number): boolean {
    if (index <= this.match) return false;
    this.match = index;
    if (this.next <= index) this.next = index + 1;
    this.probeSent = false;
    return true;
  }

  /**
   * A rejected append at prevIndex `rejected`; `hintNext` is where the leader's log and the follower's
   * hint suggest trying next. Returns false when the rejection is stale (answers an older probe).
   */
  maybeDecrTo(rejected: number, hintNext: number): boolean {
    if (this.state === "replicate") {
      if (rejected <= this.match) return false;
      this.next = this.match + 1;
      return true;
    }
    if (this.next - 1 !== rejected) return false;
    this.next = Math.max(Math.min(rejected, hintNext), this.match + 1);
    this.probeSent = false;
    return true;
  }

  /** Record an append carrying entries through `last`. */
  sentEntries(last: number): void {
    if (this.state === "replicate") {
      this.next = last + 1;
      this.inflights.push(last);
    } else if (this.state === "probe") {
      this.probeSent = true;
    }
  }

  freeInflightsTo(index: number): void {
    let k = 0;
    while (k < this.inflights.length && this.inflights[k]! <= index) k++;
    if (k > 0) this.inflights.splice(0, k);
  }

  toStatus(): ProgressStatus {
    return {
      match: this.match,
      next: this.next,
      state: this.state,
      recentActive: this.recentActive,
      inflight: this.inflights.length,
      pendingSnapshot: this.pendingSnapshot,
    };
  }
}
