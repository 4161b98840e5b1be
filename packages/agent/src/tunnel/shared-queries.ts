import { blockingWaitMs, WAIT_JITTER_FRACTION } from "@cairn/api";
import type { HeaderList } from "./protocol.js";

/**
 * Identical blocking queries share one request to the server. Processes on one node that watch the same
 * thing (consul-template instances, sidecars, a pool of workers watching one key) wake together and ask again
 * together, each with the index of the answer they all got: the agent sends one of those requests through the
 * tunnel and gives its answer to every caller, where the server used to hold, wake, read, encode and send one
 * request per caller and the agent decode one frame per caller.
 *
 * Identical means the same GET, URL and headers (token, namespace and all), so that the server could not
 * tell the requests apart. `?consistent` reads are never shared: their leadership check belongs after each
 * caller's arrival. A caller joins only a request that started at most wait/16 earlier, the spread Consul's
 * jitter already puts on the answers of identical queries, so no caller is answered earlier than its own wait
 * less that jitter. A caller that goes away leaves the others waiting; the request to the server is cancelled
 * when the last one has gone.
 */

/** What is sent through the tunnel, and whether it may be shared (see `shareKey`). */
export interface QueryFrame {
  method: string;
  /** Path and query string. */
  url: string;
  headers: HeaderList;
}

interface Shared<T> {
  readonly answer: Promise<T>;
  readonly startedAt: number;
  /** Callers still waiting for the answer; at 0 the server's request is cancelled. */
  callers: number;
  readonly upstream: AbortController;
}

export class SharedQueries<T> {
  private readonly inFlight = new Map<string, Shared<T>>();

  constructor(private readonly now: () => number) {}

  /** Requests to servers currently shared by at least one caller (for tests). */
  get size(): number {
    return this.inFlight.size;
  }

  /**
   * `send`'s answer for `frame`, sent once for every identical query that joins within the window.
   * `signal` is this caller's: when it aborts, this caller gets `cancelled()` at once. `send` is told
   * whether its answer may go to several callers.
   */
  answer(
    frame: QueryFrame,
    signal: AbortSignal | undefined,
    send: (signal: AbortSignal | undefined, shared: boolean) => Promise<T>,
    cancelled: () => T,
  ): Promise<T> {
    const share = shareKey(frame);
    if (share === undefined) return send(signal, false);
    const now = this.now();
    let shared = this.inFlight.get(share.key);
    if (shared === undefined || now - shared.startedAt > share.joinMs) {
      shared = this.start(share.key, now, send);
    }
    return this.join(share.key, shared, signal, cancelled);
  }

  private start(
    key: string,
    now: number,
    send: (signal: AbortSignal, shared: true) => Promise<T>,
  ): Shared<T> {
    const upstream = new AbortController();
    const forget = () => {
      if (this.inFlight.get(key) === shared) this.inFlight.delete(key);
    };
    const shared: Shared<T> = {
      answer: send(upstream.signal, true).finally(forget),
      startedAt: now,
      callers: 0,
      upstream,
    };
    this.inFlight.set(key, shared);
    return shared;
  }

  private join(
    key: string,
    shared: Shared<T>,
    signal: AbortSignal | undefined,
    cancelled: () => T,
  ): Promise<T> {
    shared.callers++;
    // A caller without a signal never leaves: the request stays until answered.
    if (signal === undefined) return shared.answer;
    if (signal.aborted) {
      this.leave(key, shared);
      return Promise.resolve(cancelled());
    }
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        resolve(cancelled());
        this.leave(key, shared);
      };
      signal.addEventListener("abort", leave, { once: true });
      shared.answer.then(
        (value) => {
          signal.removeEventListener("abort", leave);
          resolve(value);
        },
        (err: unknown) => {
          signal.removeEventListener("abort", leave);
          reject(err);
        },
      );
    });
  }

  private leave(key: string, shared: Shared<T>): void {
    if (--shared.callers > 0) return;
    // Nobody joins a cancelled request.
    if (this.inFlight.get(key) === shared) this.inFlight.delete(key);
    shared.upstream.abort();
  }
}

/**
 * The identity of a shareable query and how long after it started others may join it; undefined for a
 * request that is not a blocking GET (with an index above 0), that asks for `?consistent`, or whose wait the
 * server refuses (to each caller alike).
 */
export function shareKey(frame: QueryFrame): { key: string; joinMs: number } | undefined {
  if (frame.method !== "GET") return undefined;
  const waitMs = blockingWaitMs(frame.url);
  if (waitMs === undefined || Number.isNaN(waitMs) || /[?&]consistent(?:[=&]|$)/.test(frame.url))
    return undefined;
  let key = frame.url;
  for (const [name, value] of frame.headers) key += `\n${name}: ${value}`;
  return { key, joinMs: waitMs / WAIT_JITTER_FRACTION };
}
