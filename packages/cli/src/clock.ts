// Time as the lock and watch code see it, injected so that a test can drive acquisition with a clock it advances.
//
// The real deadline is an AbortController fired by our own timer, never `AbortSignal.timeout()`: Node
// holds a timeout signal only weakly, and when nothing but an `AbortSignal.any()` refers to it the garbage
// collector may take it before it fires, so the deadline silently never comes. That is how `cairn lock
// -timeout` waited for the holder instead of giving up once the process had allocated enough to collect.

export interface Deadline {
  /** Aborted when the time is up. */
  readonly signal: AbortSignal;
  /** Stops the timer; the signal then never aborts. */
  cancel(): void;
}

export interface Clock {
  /** Resolves true after `ms`, or false as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
  deadline(ms: number): Deadline;
}

export const realClock: Clock = {
  sleep(ms, signal) {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        resolve(ok);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(true), ms);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  },
  deadline(ms) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("timeout")), ms);
    return { signal: controller.signal, cancel: () => clearTimeout(timer) };
  },
};

/** A signal that never aborts, for "no deadline". */
export const never: AbortSignal = new AbortController().signal;
