// Consul's blocking-query loop, free of the DOM so it can be tested on its own: follow X-Consul-Index with
// `?index=&wait=`, start over when the index goes backwards (a snapshot restore, a new leader's store), wait
// longer after each failure, stop when aborted. Never a fixed-interval poll.

export interface Answer<T> {
  data: T;
  index: number | undefined;
}

export interface WatchOptions<T> {
  /** One request; `index` undefined asks for the current state without blocking. */
  fetch(index: number | undefined, signal: AbortSignal): Promise<Answer<T>>;
  onData(data: T, index: number | undefined): void;
  onError(err: unknown): void;
  signal: AbortSignal;
  /** First retry delay and its ceiling (doubling in between). */
  backoff?: { firstMs: number; maxMs: number };
  /**
   * The shortest time between two requests that brought no change: an endpoint that answers `?index=` at
   * once (one that does not block) is then not hammered.
   */
  minGapMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** The index to send next, from the one sent and the one answered (Consul's client guidance). */
export function nextIndex(sent: number | undefined, answered: number | undefined): number | undefined {
  if (answered === undefined) return undefined;
  if (sent !== undefined && answered < sent) return undefined;
  return answered < 1 ? 1 : answered;
}

/** Runs until `signal` aborts. Endpoints without X-Consul-Index are fetched once. */
export async function watch<T>(options: WatchOptions<T>): Promise<void> {
  const { signal } = options;
  const pause = options.sleep ?? sleep;
  const now = options.now ?? Date.now;
  const firstMs = options.backoff?.firstMs ?? 1000;
  const maxMs = options.backoff?.maxMs ?? 30_000;
  const minGapMs = options.minGapMs ?? 1000;
  let index: number | undefined;
  let failures = 0;
  let delivered = false;
  while (!signal.aborted) {
    const started = now();
    let answer: Answer<T>;
    try {
      answer = await options.fetch(index, signal);
    } catch (err) {
      if (signal.aborted) return;
      options.onError(err);
      failures++;
      index = undefined;
      await pause(Math.min(maxMs, firstMs * 2 ** (failures - 1)), signal);
      continue;
    }
    if (signal.aborted) return;
    failures = 0;
    const sent = index;
    const changed = !delivered || answer.index === undefined || answer.index !== sent;
    if (changed) {
      delivered = true;
      options.onData(answer.data, answer.index);
    }
    if (answer.index === undefined) return;
    index = nextIndex(sent, answer.index);
    if (!changed && now() - started < minGapMs) await pause(minGapMs - (now() - started), signal);
  }
}
