import { NotLeaderError, ProposalDroppedError, RaftTimeoutError, RpcError } from "@cairn/raft";

/** Consul's rpc_hold_timeout: how long a request waits out an election before failing. */
export const DEFAULT_HOLD_MS = 7_000;

const MIN_DELAY_MS = 25;
const MAX_DELAY_MS = 500;

export type Attempt<T> = { done: true; value: T } | { done: false };

export interface HoldOptions {
  holdMs: number;
  /** Also retry failures after which the request may have run (timeouts, dropped connections). */
  idempotent: boolean;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Subscribes to "a leader is now known" (returns the unsubscribe): a waiting request retries at once
   * rather than at the end of its back-off, so it succeeds as soon as an election or transfer ends.
   */
  onLeader?: (listener: () => void) => () => void;
}

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it reaches a leader, backing off while there is none (woken early by `onLeader`), for
 * at most the hold time; then throws `onTimeout()`. An attempt answers `{done: false}` when it could not even
 * try (no leader known, no connection to it). Errors that prove the request did not run (the target is not the
 * leader, the entry was overwritten by a new leader) are retried; errors after which it may have run only for
 * idempotent requests.
 */
export async function holdForLeader<T>(
  options: HoldOptions,
  attempt: () => Promise<Attempt<T>>,
  onTimeout: () => Error,
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepMs;
  const deadline = now() + options.holdMs;
  let delay = MIN_DELAY_MS;
  // Set when a leader became known since the last attempt started: that attempt may have seen the old one.
  let woken = false;
  let wake: (() => void) | undefined;
  const unsubscribe = options.onLeader?.(() => {
    woken = true;
    wake?.();
  });
  try {
    for (;;) {
      woken = false;
      try {
        const outcome = await attempt();
        if (outcome.done) return outcome.value;
      } catch (err) {
        if (!isRetryable(err, options.idempotent)) throw err;
      }
      const left = deadline - now();
      if (left <= 0) throw onTimeout();
      if (!woken) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          void sleep(Math.min(delay, left)).then(resolve);
        });
        wake = undefined;
      }
      // A new leader that still refuses (not caught up, not yet connected) starts the back-off over.
      delay = woken ? MIN_DELAY_MS : Math.min(delay * 2, MAX_DELAY_MS);
    }
  } finally {
    unsubscribe?.();
  }
}

/** Whether `err` lets a request be tried again: it proves the request did not run, or it may run twice. */
export function isRetryable(err: unknown, idempotent: boolean): boolean {
  if (err instanceof NotLeaderError || err instanceof ProposalDroppedError) return true;
  if (err instanceof RpcError) {
    if (err.failure === "remote") {
      if (err.remoteName === "NotLeaderError" || err.remoteName === "ProposalDroppedError") return true;
      return idempotent && err.remoteName === "RaftTimeoutError";
    }
    if (err.failure === "overloaded" || err.failure === "no-handler" || err.failure === "unconnected")
      return true;
    return idempotent;
  }
  return idempotent && err instanceof RaftTimeoutError;
}
