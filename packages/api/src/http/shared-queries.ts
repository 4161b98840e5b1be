import type { ClientGone } from "./client-gone.js";
import { blockingWaitMs, WAIT_JITTER_FRACTION } from "./read-options.js";

/**
 * Identical blocking queries share one run. Processes that watch the same thing (consul-template instances,
 * sidecars, a pool of workers watching one key) wake together and ask again together, each with the index
 * of the answer they all got. One of those requests is run, and its answer goes to every caller:
 * - a client agent sends one request through the tunnel (tunnel/pool.ts), where the server used to hold,
 *   wake, read, encode and send one request per caller, and the agent decode one frame per caller;
 * - a server's HTTP API runs one through its routes (shared-fetch.ts), where each caller was held, woken,
 *   read and answered on its own.
 *
 * Identical means the same GET, URL and headers (token, namespace and all), so that the API could not
 * tell the requests apart. `?consistent` reads are never shared: their leadership check belongs after each
 * caller's arrival. A caller joins only a run that started at most wait/16 earlier, the spread Consul's
 * jitter already puts on the answers of identical queries, so no caller is answered earlier than its own wait
 * less that jitter. A caller that goes away leaves the others waiting; the run is cancelled when the last
 * one has gone.
 */

/** A request as far as sharing is concerned (see `shareKey`). */
export interface QueryFrame {
  method: string;
  /** Path and query string. */
  url: string;
  /** Every header, and anything else the answer may depend on, as name and value. */
  headers: readonly (readonly [name: string, value: string])[];
}

/** Which shared run a query may join, and for how long after that run started. */
export interface ShareKey {
  readonly key: string;
  readonly joinMs: number;
}

/** A caller waiting for a shared run's answer. */
interface Caller<T> {
  readonly resolve: (value: T) => void;
  readonly reject: (err: unknown) => void;
  /** Unregisters the caller's leaving (ClientGone's return). */
  stay: () => void;
}

interface Shared<T> {
  readonly startedAt: number;
  /** Callers still waiting for the answer; when the last leaves, the run is cancelled. */
  readonly callers: Set<Caller<T>>;
  readonly upstream: AbortController;
}

export interface SharedQueriesOptions {
  /** Callers told at once when the answer comes; the rest are told together a turn later (default 256). */
  firstBatch?: number;
  /** Runs `fn` on a later turn, after pending I/O (Node: setImmediate). */
  defer?: (fn: () => void) => void;
}

export class SharedQueries<T> {
  private readonly inFlight = new Map<string, Shared<T>>();
  private readonly firstBatch: number;
  private readonly defer: (fn: () => void) => void;

  constructor(
    private readonly now: () => number,
    options: SharedQueriesOptions = {},
  ) {
    this.firstBatch = options.firstBatch ?? 256;
    this.defer = options.defer ?? setImmediate;
  }

  /** Runs currently shared by at least one caller (for tests). */
  get size(): number {
    return this.inFlight.size;
  }

  /**
   * `send`'s answer for the query `share` stands for, run once for every identical query that joins within
   * the window; `send`'s signal aborts when the last caller has gone. `gone` registers this caller's leaving
   * (undefined: it never leaves); it then gets `cancelled()` at once.
   */
  answer(
    share: ShareKey,
    gone: ClientGone | undefined,
    send: (signal: AbortSignal) => Promise<T>,
    cancelled: () => T,
  ): Promise<T> {
    const now = this.now();
    let shared = this.inFlight.get(share.key);
    if (shared === undefined || now - shared.startedAt > share.joinMs) {
      shared = this.start(share.key, now, send);
    }
    const joined = shared;
    return new Promise<T>((resolve, reject) => {
      const caller: Caller<T> = { resolve, reject, stay: noop };
      joined.callers.add(caller);
      if (gone === undefined) return;
      // Called at once by a caller already gone.
      caller.stay = gone(() => {
        if (!joined.callers.delete(caller)) return;
        resolve(cancelled());
        if (joined.callers.size === 0) this.cancel(share.key, joined);
      });
    });
  }

  private start(key: string, now: number, send: (signal: AbortSignal) => Promise<T>): Shared<T> {
    const shared: Shared<T> = { startedAt: now, callers: new Set(), upstream: new AbortController() };
    this.inFlight.set(key, shared);
    // A `send` that throws rather than rejecting still ends the run: nobody is left joined to it for good.
    new Promise<T>((resolve) => resolve(send(shared.upstream.signal))).then(
      (value) => this.deliver(key, shared, (c) => c.resolve(value)),
      (err: unknown) => this.deliver(key, shared, (c) => c.reject(err)),
    );
    return shared;
  }

  /**
   * Tells every caller of `shared` its outcome: the first `firstBatch` at once, the rest together on the next
   * turn. Alternating runs of 10,000 callers (bench/results/2026-11-28-shared-http-queries.md):
   * - all in one turn: the last answered soonest of the batched ways tried, but the write that woke them, and
   *   the first of them, were answered only after every caller's promise chain had run (37–57 ms);
   * - 256 or 2,048 per turn, as the watch registry wakes distinct queries: the first answers in 5–10 ms, but
   *   the last some 100 ms later than in one turn;
   * - 256 at once and the rest on the next turn: the first in 5–11 ms and the last as soon as in one turn.
   * The second turn holds the event loop for about 20 µs per caller (some 200 ms for 10,000), below Raft's
   * concern: its election timeout is 1 s, and a leader's own stalls do not count as silence.
   */
  private deliver(key: string, shared: Shared<T>, tell: (caller: Caller<T>) => void): void {
    this.forget(key, shared);
    const callers = [...shared.callers];
    // From here on a caller leaving changes nothing: its answer is on its way.
    shared.callers.clear();
    const tellRange = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const caller = callers[i]!;
        caller.stay();
        tell(caller);
      }
    };
    const first = Math.min(callers.length, this.firstBatch);
    tellRange(0, first);
    if (first < callers.length) this.defer(() => tellRange(first, callers.length));
  }

  private cancel(key: string, shared: Shared<T>): void {
    // Nobody joins a cancelled run.
    this.forget(key, shared);
    shared.upstream.abort();
  }

  private forget(key: string, shared: Shared<T>): void {
    if (this.inFlight.get(key) === shared) this.inFlight.delete(key);
  }
}

const noop = () => {};

/**
 * The identity of a shareable query and how long after it started others may join it; undefined for a
 * request that is not a blocking GET (with an index above 0), that asks for `?consistent`, or whose wait the
 * API refuses (to each caller alike).
 */
export function shareKey(frame: QueryFrame): ShareKey | undefined {
  if (frame.method !== "GET") return undefined;
  const waitMs = blockingWaitMs(frame.url);
  if (waitMs === undefined || Number.isNaN(waitMs) || /[?&]consistent(?:[=&]|$)/.test(frame.url))
    return undefined;
  let key = frame.url;
  for (const [name, value] of frame.headers) key += `\n${name}: ${value}`;
  return { key, joinMs: waitMs / WAIT_JITTER_FRACTION };
}
