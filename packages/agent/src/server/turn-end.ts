import { atTurnEnd } from "@cairn/raft";

/**
 * The end of the event loop's current turn, shared: every caller in one turn gets the same promise, settled
 * in that turn's check phase (atTurnEnd), after the poll phase has taken in every request that arrived
 * with theirs; what the answers defer in turn (a tunnel's corked frames) still leaves in that check phase.
 *
 * A server answers the reads it serves from its own state there rather than each inside its socket's
 * callback (raft-backend.ts). Answered one at a time, every answer was written and its client woken before
 * the next request was even read: on two cores shared with the load generator, that ping-pong of small
 * writes and wake-ups cost more than the reads. Batched per turn, one leader served 20,000–26,000 default
 * reads/s with 64 clients where it served 12,300–12,900, and three servers 31,000–38,000 stale reads/s
 * where they served 16,700–21,800 (bench/results/2026-11-27-read-turns.md). Writes and `?consistent` reads
 * were already answered in batches: after the commit, and after the heartbeat round.
 */
export function turnEnd(): Promise<void> {
  if (pending === undefined) {
    pending = new Promise((resolve) => {
      atTurnEnd(() => {
        pending = undefined;
        resolve();
      });
    });
  }
  return pending;
}

let pending: Promise<void> | undefined;
