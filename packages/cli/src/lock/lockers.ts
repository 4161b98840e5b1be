// Acquiring, watching and giving up a lock (one holder) or a semaphore (n holders) over the KV API, with
// blocking queries so waiting costs one open request, not a poll loop.

import { type Clock, realClock } from "../clock.js";
import { joinPath } from "../format.js";
import { ApiError } from "../http.js";
import type { KvApi } from "../kv-api.js";
import {
  type CleanupPlan,
  holdsSlot,
  LOCK_FLAGS,
  lockKey,
  mutexView,
  planMutexCleanup,
  planSemaphoreAcquire,
  planSemaphoreCleanup,
  planSemaphoreRelease,
  SEMAPHORE_FLAGS,
} from "./protocol.js";

/** How long one blocking read waits for a change before it is reissued. */
const WAIT = "15s";

export interface LockTuning {
  /** Errors tolerated while watching a held lock before declaring it lost (consul's -monitor-retry). */
  monitorRetries: number;
  monitorRetryMs: number;
  /** Bounds of the back-off after an acquire refused while the key looks free (a lock-delay). */
  retryMinMs: number;
  retryMaxMs: number;
}

export const DEFAULT_TUNING: LockTuning = {
  monitorRetries: 3,
  monitorRetryMs: 1000,
  retryMinMs: 250,
  retryMaxMs: 5000,
};

/** The KV calls the lockers make: KvApi over HTTP, or a scripted store in unit tests. */
export type LockKv = Pick<KvApi, "get" | "list" | "put" | "delete">;

export interface Held {
  /** Aborted when the lock is lost (session invalidated, key taken, or the servers unreachable too long). */
  lost: AbortSignal;
  release(): Promise<void>;
}

export interface Locker {
  readonly key: string;
  /**
   * Blocks until held; undefined when `signal` aborts first (shutdown or -timeout). Every wait inside, a
   * blocking read, a write in flight or a back-off, ends when `signal` aborts. A write aborted in flight may
   * still have been applied: the caller then destroys the session, which gives up whatever it holds.
   */
  acquire(session: string, signal: AbortSignal): Promise<Held | undefined>;
  /** Deletes the coordination key if nobody uses it: "in-use" when someone does. */
  cleanup(): Promise<"done" | "in-use">;
}

/** A blocking read is aborted by `signal`; report that as "stop", not as an error. */
async function untilAborted<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (err) {
    if (signal.aborted) return undefined;
    throw err;
  }
}

/**
 * Watches with blocking reads until `stillHeld` says no, or errors exceed the retry budget, then aborts
 * the returned signal. Only 5xx and network errors are retried, as consul does.
 */
function monitor(
  read: (index: bigint | undefined, signal: AbortSignal) => Promise<{ held: boolean; index: bigint }>,
  tuning: LockTuning,
  clock: Clock,
): { lost: AbortSignal; stop: () => void } {
  const lost = new AbortController();
  const stopper = new AbortController();
  void (async () => {
    let index: bigint | undefined;
    let failures = 0;
    while (!stopper.signal.aborted) {
      try {
        const res = await read(index, stopper.signal);
        failures = 0;
        if (!res.held) break;
        index = res.index;
      } catch (err) {
        if (stopper.signal.aborted) return;
        const retryable = !(err instanceof ApiError) || err.status === 0 || err.status >= 500;
        if (!retryable || ++failures > tuning.monitorRetries) break;
        await clock.sleep(tuning.monitorRetryMs, stopper.signal);
      }
    }
    if (!stopper.signal.aborted) lost.abort();
  })();
  return { lost: lost.signal, stop: () => stopper.abort() };
}

async function applyCleanup(
  kv: LockKv,
  key: string,
  plan: CleanupPlan,
  conflict: string,
): Promise<"done" | "in-use"> {
  switch (plan.kind) {
    case "nothing":
      return "done";
    case "in-use":
      return "in-use";
    case "conflict":
      throw new Error(conflict);
    case "delete":
      return (await kv.delete(key, { cas: plan.cas })) ? "done" : "in-use";
  }
}

export class Mutex implements Locker {
  readonly key: string;

  constructor(
    private readonly kv: LockKv,
    prefix: string,
    private readonly tuning: LockTuning = DEFAULT_TUNING,
    private readonly clock: Clock = realClock,
  ) {
    this.key = lockKey(prefix);
  }

  async acquire(session: string, signal: AbortSignal): Promise<Held | undefined> {
    let index: bigint | undefined;
    let backoff = this.tuning.retryMinMs;
    while (!signal.aborted) {
      const read = await untilAborted(signal, () => this.kv.get(this.key, { index, wait: WAIT, signal }));
      if (read === undefined) return undefined;
      const view = mutexView(read.entry, session);
      if (view === "conflict") throw new Error("Existing key does not match lock use");
      if (view === "held") {
        index = read.index;
        continue;
      }
      const won = await untilAborted(signal, () =>
        this.kv.put({ key: this.key, flags: LOCK_FLAGS, acquire: session }, signal),
      );
      if (won === undefined) return undefined;
      if (won) return this.hold(session);
      // Refused while free: the previous holder's session was invalidated and its lock-delay is running.
      // Back off (doubling, capped) instead of hammering the server until the delay ends.
      index = undefined;
      if (!(await this.clock.sleep(backoff, signal))) return undefined;
      backoff = Math.min(backoff * 2, this.tuning.retryMaxMs);
    }
    return undefined;
  }

  private hold(session: string): Held {
    const watch = monitor(
      async (index, signal) => {
        const { entry, index: next } = await this.kv.get(this.key, {
          index,
          wait: WAIT,
          consistent: true,
          signal,
        });
        return { held: mutexView(entry, session) === "mine", index: next };
      },
      this.tuning,
      this.clock,
    );
    return {
      lost: watch.lost,
      release: async () => {
        watch.stop();
        await this.kv.put({ key: this.key, flags: LOCK_FLAGS, release: session });
      },
    };
  }

  async cleanup(): Promise<"done" | "in-use"> {
    const { entry } = await this.kv.get(this.key);
    return applyCleanup(this.kv, this.key, planMutexCleanup(entry), "Existing key does not match lock use");
  }
}

export class Semaphore implements Locker {
  readonly key: string;

  constructor(
    private readonly kv: LockKv,
    private readonly prefix: string,
    private readonly limit: number,
    private readonly tuning: LockTuning = DEFAULT_TUNING,
    private readonly clock: Clock = realClock,
  ) {
    this.key = lockKey(prefix);
  }

  async acquire(session: string, signal: AbortSignal): Promise<Held | undefined> {
    // The contender entry, tied to the session: when the session dies the entry goes and so does its slot.
    const contender = joinPath(this.prefix, session);
    const entered = await untilAborted(signal, () =>
      this.kv.put({ key: contender, flags: SEMAPHORE_FLAGS, acquire: session }, signal),
    );
    if (entered === undefined) return undefined;
    if (!entered) throw new Error("failed to make contender entry");
    let index: bigint | undefined;
    while (!signal.aborted) {
      const read = await untilAborted(signal, () => this.kv.list(this.prefix, { index, wait: WAIT, signal }));
      if (read === undefined) return undefined;
      const plan = planSemaphoreAcquire(this.prefix, session, this.limit, read.entries);
      if (plan.kind === "conflict") throw new Error(plan.reason);
      if (plan.kind === "wait") {
        index = read.index;
        continue;
      }
      const won = await untilAborted(signal, () =>
        this.kv.put({ key: this.key, value: plan.value, flags: SEMAPHORE_FLAGS, cas: plan.cas }, signal),
      );
      if (won === undefined) return undefined;
      if (won) return this.hold(session, contender);
      // Lost a race with another contender: read again at once.
      index = undefined;
    }
    return undefined;
  }

  private hold(session: string, contender: string): Held {
    const watch = monitor(
      async (index, signal) => {
        const { entries, index: next } = await this.kv.list(this.prefix, {
          index,
          wait: WAIT,
          consistent: true,
          signal,
        });
        return { held: holdsSlot(this.prefix, session, this.limit, entries), index: next };
      },
      this.tuning,
      this.clock,
    );
    return {
      lost: watch.lost,
      release: async () => {
        watch.stop();
        for (;;) {
          const { entry } = await this.kv.get(this.key);
          const plan = planSemaphoreRelease(entry, session, this.limit);
          if (plan === undefined) break;
          if (await this.kv.put({ key: this.key, value: plan.value, flags: SEMAPHORE_FLAGS, cas: plan.cas }))
            break;
        }
        await this.kv.delete(contender);
      },
    };
  }

  async cleanup(): Promise<"done" | "in-use"> {
    const { entries } = await this.kv.list(this.prefix);
    const plan = planSemaphoreCleanup(this.prefix, this.limit, entries);
    return applyCleanup(this.kv, this.key, plan, "Existing key does not match semaphore use");
  }
}
