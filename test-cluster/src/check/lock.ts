// The lock workload's check: holds of one lock by different sessions never overlap.
//
// A hold runs from the acquire's acknowledgement to the release's invocation. When the holder finds that its
// session was invalidated meanwhile (the release answers false or times out), it cannot know when the loss
// happened; what it does know is that the session was valid when its last successful acquire or renew was
// invoked, and that the server refuses the lock to anyone else for lock-delay after an invalidation. So such
// a hold ends at the earlier of the release invocation and that last confirmation plus lock-delay.

import { groupBy } from "./group.js";

export interface Hold {
  readonly lock: string;
  readonly client: number;
  readonly session: string;
  readonly start: number;
  readonly end: number;
}

export interface LockVerdict {
  readonly valid: boolean;
  readonly holds: number;
  readonly overlaps: readonly (readonly [Hold, Hold])[];
}

/** The hold interval a client may claim, per the rule above. */
export function holdInterval(
  acquireAck: number,
  releaseInvoke: number,
  lost: boolean,
  lastConfirm: number,
  lockDelayMs: number,
): { start: number; end: number } {
  return {
    start: acquireAck,
    end: lost ? Math.min(releaseInvoke, lastConfirm + lockDelayMs) : releaseInvoke,
  };
}

export function checkLocks(holds: readonly Hold[]): LockVerdict {
  const overlaps: [Hold, Hold][] = [];
  for (const list of groupBy(holds, (h) => h.lock).values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 0; i < list.length; i++) {
      const a = list[i]!;
      for (let j = i + 1; j < list.length && list[j]!.start < a.end; j++) {
        const b = list[j]!;
        if (b.session !== a.session && b.end > b.start && a.end > a.start) overlaps.push([a, b]);
      }
    }
  }
  return { valid: overlaps.length === 0, holds: holds.length, overlaps };
}
