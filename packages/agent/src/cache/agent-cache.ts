import { createHash } from "node:crypto";
import { withReusableBody } from "@cairn/api";
import { DurationError, parseDurationMs } from "@cairn/duration";
import type { Logger } from "pino";
import { requestToken } from "../tunnel/request-token.js";
import { type CacheControl, INVALID_CACHE_CONTROL, parseCacheControl } from "./cache-control.js";
import { type CacheKind, cacheKind } from "./cacheable.js";

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

/**
 * Consul's agent cache for `?cached` reads, on every agent (server or client), in front of the agent's
 * own API: results are kept per request and per token (one token never sees what another read), the
 * "refresh" kinds kept current by one background blocking query each, so any number of local clients
 * (blocking ones too) cost the servers one watch. Responses say `X-Cache: HIT|MISS`, and `Age` on hits.
 * Entries unused for `ttlMs` (Consul: 3 days) go, and so do the least recently used ones beyond the
 * memory budget. A result the servers refuse to the token (403) is dropped, never served stale.
 */

export interface AgentCacheOptions {
  /** The agent's API: what a miss and every refresh ask. */
  upstream: Fetch;
  log: Logger;
  /** The token a request without one is served under (the agent's default token). */
  defaultToken?: () => string;
  ttlMs?: number;
  maxBytes?: number;
  maxEntries?: number;
  /** How long each background blocking query waits (Consul: 10 minutes). */
  refreshWaitMs?: number;
  now?: () => number;
}

export const CACHE_TTL_MS = 72 * 3600_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_ENTRIES = 10_000;
const REFRESH_WAIT_MS = 10 * 60_000;
const DEFAULT_BLOCK_MS = 5 * 60_000;
const MAX_BLOCK_MS = 10 * 60_000;
const MAX_BACKOFF_MS = 60_000;
/** A refresh that came back at once with nothing new waits this long before asking again. */
const MIN_REFRESH_INTERVAL_MS = 1000;
const MAX_REQUEST_BODY = 64 * 1024;
/** Query parameters that do not change what a cached read returns. */
const NOT_IN_KEY = new Set(["cached", "index", "wait", "stale", "max_stale", "token"]);
/** Headers that select what is read (beside the token). */
const KEY_HEADERS = ["x-consul-namespace", "x-service-namespace", "x-consul-partition"];
const DROP_RESPONSE_HEADERS = new Set([
  "content-length",
  "connection",
  "transfer-encoding",
  "date",
  "keep-alive",
]);

interface Stored {
  readonly status: number;
  readonly headers: readonly [string, string][];
  readonly body: Uint8Array;
  readonly index: bigint;
}

interface Template {
  readonly url: URL;
  readonly method: string;
  readonly headers: readonly [string, string][];
  readonly body: Uint8Array | undefined;
}

interface Entry {
  readonly key: string;
  readonly kind: CacheKind;
  readonly template: Template;
  value: Stored | undefined;
  fetchedAt: number;
  /** Refresh kinds: since when the background query has been failing. */
  lostContactAt: number | undefined;
  lastUsed: number;
  bytes: number;
  loading: Promise<Loaded> | undefined;
  readonly waiters: Set<() => void>;
  refresh: AbortController | undefined;
  refreshing: boolean;
  /** Failed background refreshes so far, and the last one's answer. */
  failures: number;
  lastError: Stored | undefined;
  evicted: boolean;
}

type Loaded = { ok: Stored } | { error: Stored };

const indexOf = (headers: Headers): bigint => {
  const raw = headers.get("x-consul-index") ?? headers.get("x-service-index") ?? "";
  return /^[0-9]+$/.test(raw) ? BigInt(raw) : 0n;
};

async function store(res: Response): Promise<Stored> {
  const headers: [string, string][] = [];
  res.headers.forEach((value, name) => {
    if (!DROP_RESPONSE_HEADERS.has(name)) headers.push([name, value]);
  });
  return {
    status: res.status,
    headers,
    body: new Uint8Array(await res.arrayBuffer()),
    index: indexOf(res.headers),
  };
}

function answer(s: Stored, cache?: { hit: boolean; ageMs: number }): Response {
  const headers = new Headers(s.headers as [string, string][]);
  if (cache) {
    headers.set("X-Cache", cache.hit ? "HIT" : "MISS");
    if (cache.hit) headers.set("Age", String(Math.max(0, Math.round(cache.ageMs / 1000))));
  }
  if (s.status === 204 || s.status === 304) return new Response(null, { status: s.status, headers });
  return withReusableBody(new Response(s.body, { status: s.status, headers }), s.body);
}

const text = (status: number, body: string): Stored => ({
  status,
  headers: [["content-type", "text/plain; charset=utf-8"]],
  body: new TextEncoder().encode(body),
  index: 0n,
});

function blocking(url: URL, random: () => number): { minIndex: bigint; waitMs: number } | undefined {
  const index = url.searchParams.get("index") ?? "";
  if (index !== "" && !/^[0-9]{1,20}$/.test(index)) return undefined;
  const wait = url.searchParams.get("wait") ?? "";
  let waitMs = DEFAULT_BLOCK_MS;
  if (wait !== "") {
    try {
      const ms = parseDurationMs(wait);
      if (ms > 0) waitMs = Math.min(ms, MAX_BLOCK_MS);
    } catch (err) {
      if (err instanceof DurationError) return undefined;
      throw err;
    }
  }
  return {
    minIndex: index === "" ? 0n : BigInt(index),
    waitMs: waitMs + Math.floor(random() * (waitMs / 16)),
  };
}

export class AgentCache {
  readonly #o: Required<Omit<AgentCacheOptions, "defaultToken">> & Pick<AgentCacheOptions, "defaultToken">;
  // Map order is recency order: a used entry is moved to the end, eviction takes from the front.
  readonly #entries = new Map<string, Entry>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #timers = new Set<NodeJS.Timeout>();
  #bytes = 0;
  #closed = false;

  constructor(options: AgentCacheOptions) {
    this.#o = {
      ttlMs: CACHE_TTL_MS,
      maxBytes: DEFAULT_MAX_BYTES,
      maxEntries: DEFAULT_MAX_ENTRIES,
      refreshWaitMs: REFRESH_WAIT_MS,
      now: Date.now,
      ...options,
    };
    this.#sweeper = setInterval(() => this.#sweep(), Math.max(10, Math.min(this.#o.ttlMs / 2, 60_000)));
    this.#sweeper.unref();
  }

  /** The agent's API with `?cached` reads served from the cache. */
  readonly fetch = (request: Request, env?: unknown): Response | Promise<Response> => {
    const q = request.url.indexOf("?");
    if (q < 0 || !new URLSearchParams(request.url.slice(q + 1)).has("cached") || this.#closed) {
      return this.#o.upstream(request, env);
    }
    const url = new URL(request.url);
    const kind = cacheKind(request.method, url.pathname);
    // ?consistent with ?cached is the API's 400 to give; anything else uncacheable is served uncached.
    if (kind === undefined || url.searchParams.has("consistent")) return this.#o.upstream(request, env);
    return this.#cached(request, env, url, kind);
  };

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Stops every background query and answers every waiting request with what the cache holds. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#sweeper);
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const entry of [...this.#entries.values()]) this.#evict(entry);
  }

  async #cached(request: Request, env: unknown, url: URL, kind: CacheKind): Promise<Response> {
    const cc = parseCacheControl(request.headers.get("cache-control"));
    if (!cc) return answer(text(400, INVALID_CACHE_CONTROL));
    const block = kind === "refresh" ? blocking(url, Math.random) : { minIndex: 0n, waitMs: 0 };
    // A malformed index or wait: the API's own 400.
    if (!block) return this.#o.upstream(request, env);
    let body: Uint8Array | undefined;
    if (request.method === "POST") {
      body = new Uint8Array(await request.arrayBuffer());
      if (body.length > MAX_REQUEST_BODY) {
        return this.#o.upstream(new Request(request.url, { method: "POST", headers: request.headers, body }));
      }
    }
    const entry = this.#entry(request, url, kind, body);
    return kind === "simple"
      ? this.#serveSimple(entry, cc)
      : this.#serveRefresh(entry, block, request.signal);
  }

  #entry(request: Request, url: URL, kind: CacheKind, body: Uint8Array | undefined): Entry {
    const token = requestToken(request.url, request.headers) || this.#o.defaultToken?.() || "";
    const params = [...url.searchParams]
      .filter(([k]) => !NOT_IN_KEY.has(k))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const hash = createHash("sha256");
    hash.update(
      JSON.stringify([
        request.method,
        url.pathname,
        params,
        token,
        KEY_HEADERS.map((h) => request.headers.get(h)),
      ]),
    );
    if (body) hash.update(body);
    const key = hash.digest("base64url");
    const now = this.#o.now();
    let entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
    } else {
      const upstreamUrl = new URL(url.href);
      for (const p of ["cached", "index", "wait", "consistent"]) upstreamUrl.searchParams.delete(p);
      // Consul's cache always reads stale: a cached answer may be stale anyway, the leader is spared.
      if (!upstreamUrl.searchParams.has("stale")) upstreamUrl.searchParams.set("stale", "");
      const headers: [string, string][] = [];
      request.headers.forEach((value, name) => {
        if (name !== "cache-control" && name !== "content-length") headers.push([name, value]);
      });
      entry = {
        key,
        kind,
        template: { url: upstreamUrl, method: request.method, headers, body },
        value: undefined,
        fetchedAt: 0,
        lostContactAt: undefined,
        lastUsed: now,
        bytes: 0,
        loading: undefined,
        waiters: new Set(),
        refresh: undefined,
        refreshing: false,
        failures: 0,
        lastError: undefined,
        evicted: false,
      };
    }
    entry.lastUsed = now;
    this.#entries.set(key, entry);
    return entry;
  }

  #ageMs(entry: Entry): number {
    const now = this.#o.now();
    if (entry.kind === "simple") return now - entry.fetchedAt;
    return entry.lostContactAt === undefined ? 0 : now - entry.lostContactAt;
  }

  async #serveSimple(entry: Entry, cc: CacheControl): Promise<Response> {
    const held = entry.value;
    if (held && !cc.mustRevalidate && (cc.maxAgeMs === 0 || this.#ageMs(entry) <= cc.maxAgeMs)) {
      return answer(held, { hit: true, ageMs: this.#ageMs(entry) });
    }
    const loaded = await this.#load(entry);
    if ("ok" in loaded) return answer(loaded.ok, { hit: false, ageMs: 0 });
    if (held && entry.value === held && cc.staleIfErrorMs > 0 && this.#ageMs(entry) <= cc.staleIfErrorMs) {
      return answer(held, { hit: true, ageMs: this.#ageMs(entry) });
    }
    return answer(loaded.error);
  }

  /**
   * Refresh kinds ignore Cache-Control, as Consul's do: the background query keeps them current, and
   * when it cannot, the last result is still the best there is.
   */
  async #serveRefresh(
    entry: Entry,
    block: { minIndex: bigint; waitMs: number },
    signal: AbortSignal,
  ): Promise<Response> {
    let hit = true;
    let value = entry.value;
    if (!value) {
      const loaded = await this.#load(entry);
      if ("error" in loaded) return answer(loaded.error);
      value = loaded.ok;
      hit = false;
    }
    this.#startRefresh(entry);
    if (block.minIndex > 0n && value.index <= block.minIndex) {
      // Nothing newer can come while the refresh is failing: a blocked client hears why at once.
      if (entry.lostContactAt !== undefined && entry.lastError) return answer(entry.lastError);
      const failures = entry.failures;
      await this.#changed(entry, value, block.waitMs, signal);
      // Blocked clients see a failing refresh at once rather than after their whole wait (Consul).
      if (entry.value === value && entry.failures !== failures && entry.lastError && !this.#closed) {
        return answer(entry.lastError);
      }
      value = entry.value ?? value;
      hit = false;
    }
    return answer(value, { hit, ageMs: this.#ageMs(entry) });
  }

  /** One fetch for an entry at a time, shared by every request that needs it. */
  #load(entry: Entry): Promise<Loaded> {
    entry.loading ??= this.#fetchOnce(entry).finally(() => {
      entry.loading = undefined;
    });
    return entry.loading;
  }

  #request(entry: Entry, blockingIndex?: bigint, signal?: AbortSignal): Request {
    const url = new URL(entry.template.url.href);
    if (blockingIndex !== undefined) {
      url.searchParams.set("index", String(blockingIndex > 0n ? blockingIndex : 1n));
      url.searchParams.set("wait", `${Math.round(this.#o.refreshWaitMs)}ms`);
    }
    return new Request(url.href, {
      method: entry.template.method,
      headers: entry.template.headers as [string, string][],
      ...(entry.template.body ? { body: entry.template.body } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  async #fetchOnce(entry: Entry): Promise<Loaded> {
    let res: Response;
    try {
      res = await this.#o.upstream(this.#request(entry));
    } catch (err) {
      return { error: text(500, (err as Error).message) };
    }
    const stored = await store(res);
    if (stored.status !== 200) {
      // Errors are not cached; an entry that never held a result goes with its failure.
      if (!entry.value || stored.status === 403) this.#evict(entry);
      return { error: stored };
    }
    this.#set(entry, stored);
    return { ok: stored };
  }

  #set(entry: Entry, stored: Stored): void {
    if (entry.evicted) return;
    const headerBytes = (headers: readonly [string, string][]) =>
      headers.reduce((n, [k, v]) => n + k.length + v.length, 0);
    // What the entry holds besides the result: the request its refresh repeats.
    const t = entry.template;
    const bytes =
      stored.body.length +
      headerBytes(stored.headers) +
      entry.key.length +
      t.url.href.length +
      headerBytes(t.headers) +
      (t.body?.length ?? 0);
    this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    entry.value = stored;
    entry.fetchedAt = this.#o.now();
    entry.lostContactAt = undefined;
    for (const wake of [...entry.waiters]) wake();
    for (const victim of this.#entries.values()) {
      if (this.#bytes <= this.#o.maxBytes && this.#entries.size <= this.#o.maxEntries) break;
      this.#evict(victim);
    }
  }

  #evict(entry: Entry): void {
    if (entry.evicted) return;
    entry.evicted = true;
    entry.refresh?.abort();
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
    this.#bytes -= entry.bytes;
    for (const wake of [...entry.waiters]) wake();
  }

  #sweep(): void {
    const cutoff = this.#o.now() - this.#o.ttlMs;
    for (const entry of [...this.#entries.values()]) {
      if (entry.lastUsed < cutoff && entry.waiters.size === 0) this.#evict(entry);
    }
  }

  /** Resolves when the entry holds something newer than `seen`, is evicted, or `ms` or the client is gone. */
  #changed(entry: Entry, seen: Stored, ms: number, signal: AbortSignal): Promise<void> {
    if (entry.evicted || entry.value !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        entry.waiters.delete(done);
        signal.removeEventListener("abort", done);
        entry.lastUsed = this.#o.now();
        resolve();
      };
      const timer = setTimeout(done, ms);
      entry.waiters.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.#timers.delete(t);
        resolve();
      }, ms);
      t.unref();
      this.#timers.add(t);
    });
  }

  #startRefresh(entry: Entry): void {
    if (entry.kind !== "refresh" || entry.refreshing || entry.evicted) return;
    entry.refreshing = true;
    void this.#refreshLoop(entry).catch((err: unknown) => {
      this.#o.log.warn({ err: (err as Error).message }, "cache refresh stopped");
      this.#evict(entry);
    });
  }

  async #refreshLoop(entry: Entry): Promise<void> {
    let backoffMs = 0;
    while (!entry.evicted && !this.#closed) {
      const seen = entry.value?.index ?? 0n;
      const controller = new AbortController();
      entry.refresh = controller;
      const started = this.#o.now();
      let failed: Stored | undefined;
      try {
        const res = await this.#o.upstream(this.#request(entry, seen, controller.signal));
        if (entry.evicted || this.#closed) {
          void res.body?.cancel();
          return;
        }
        if (res.status === 200) {
          const stored = await store(res);
          backoffMs = 0;
          if (stored.index !== seen) this.#set(entry, stored);
          else {
            entry.lostContactAt = undefined;
            if (this.#o.now() - started < MIN_REFRESH_INTERVAL_MS) await this.#sleep(MIN_REFRESH_INTERVAL_MS);
          }
        } else if (res.status === 403) {
          // The token lost the right to this result: drop it rather than serve it on.
          void res.body?.cancel();
          this.#evict(entry);
          return;
        } else {
          failed = await store(res);
        }
      } catch (err) {
        if (entry.evicted || this.#closed) return;
        failed = text(500, (err as Error).message);
      }
      if (failed) {
        entry.lostContactAt ??= this.#o.now();
        entry.failures++;
        entry.lastError = failed;
        for (const wake of [...entry.waiters]) wake();
        backoffMs = Math.min(Math.max(backoffMs * 2, 250), MAX_BACKOFF_MS);
        await this.#sleep(backoffMs);
      }
    }
  }
}
