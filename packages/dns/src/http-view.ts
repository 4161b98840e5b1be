import { parseDurationMs } from "@cairn/duration";
import type { CheckStatus, Instance, NodeRecord, QueryAnswer, StateView } from "./view.js";

export type Fetch = (request: Request) => Response | Promise<Response>;

export interface HttpViewOptions {
  fetch: Fetch;
  /** `dns_config.allow_stale`: reads go to any server (`?stale`), bounded by `maxStaleMs`. */
  allowStale: boolean;
  maxStaleMs: number;
  /** `dns_config.use_cache`: a read is reused this long (0: never). */
  cacheMaxAgeMs?: number;
  now?: () => number;
  /** Called with X-Consul-LastContact (ms) of each stale read, for the stale-query metric. */
  onStaleRead?: (lastContactMs: number) => void;
  /**
   * How long a read from another datacenter may take before the question answers SERVFAIL: less than a
   * DNS client waits for an answer (dig's 5 s), so a datacenter cut off is told, not a hang.
   */
  remoteTimeoutMs?: number;
}

/** Raised when the API cannot answer: the listener answers SERVFAIL. */
export class ViewError extends Error {}

interface HealthEntryJson {
  Node: { Node: string; Address: string; Datacenter?: string; Meta?: Record<string, string> | null };
  Service: { Address?: string; Port?: number; Weights?: { Passing?: number; Warning?: number } | null };
  Checks?: { CheckID: string; Status: string }[] | null;
}

/**
 * The state view over the agent's own /v1 API: no token (the HTTP layer applies the agent's default token,
 * as Consul's DNS does), stale reads when allowed, and on a client agent the same forwarding to servers as
 * any API request.
 */
export function httpView(o: HttpViewOptions): StateView & { close(): void } {
  const consistency = o.allowStale ? `stale&max_stale=${Math.max(1, Math.floor(o.maxStaleMs))}ms` : "";
  // With stale reads allowed, questions arriving while the same read is in flight share it: under load,
  // one read answers a burst of identical questions, and none of them is staler than allow_stale permits.
  const inFlight = new Map<string, Promise<Read>>();
  const cache = new Map<string, { at: number; value: unknown }>();
  const now = o.now ?? Date.now;
  const maxAge = o.cacheMaxAgeMs ?? 0;
  // The cache keeps what a read was shaped into, so a cached answer costs no JSON decoding or mapping.
  const get = async <T>(path: string, shape: (body: unknown) => T): Promise<T> => {
    if (maxAge <= 0) return o.allowStale ? watched(path, shape) : shape((await read(path)).body);
    const hit = cache.get(path);
    if (hit && now() - hit.at < maxAge) return hit.value as T;
    const value = shape((await shared(path)).body);
    // Bounded: a flood of distinct names must not grow the agent without limit.
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(path, { at: now(), value });
    return value;
  };
  // Without use_cache but with stale reads allowed, a name asked for is kept current by a blocking query on
  // its read (as Consul's agent cache does for use_cache): the watch answers as soon as the agent applies a
  // change, so an answer from it is as fresh as a stale read. The wait bounds how long a change the index
  // does not see (the default token's policy) goes unnoticed; names not asked for a while are let go.
  const watches = new Map<string, Watch>();
  const aborter = new AbortController();
  const watched = async <T>(path: string, shape: (body: unknown) => T): Promise<T> => {
    const w = watches.get(path);
    if (w) {
      w.askedAt = now();
      return w.value as T;
    }
    const first = await shared(path);
    const value = shape(first.body);
    if (
      first.index !== undefined &&
      watches.size < MAX_WATCHED &&
      !watches.has(path) &&
      !aborter.signal.aborted
    ) {
      const watch: Watch = { value, index: first.index, askedAt: now(), text: first.text };
      watches.set(path, watch);
      void follow(path, watch, shape);
    }
    return value;
  };
  const follow = async (path: string, w: Watch, shape: (body: unknown) => unknown): Promise<void> => {
    try {
      while (!aborter.signal.aborted && now() - w.askedAt < WATCH_IDLE_MS) {
        const next = await read(path, `index=${w.index}&wait=${WATCH_WAIT}`);
        if (next.index === undefined) break;
        // A wait that ran out returns the same data: keeping the shaped value keeps the resolver's records
        // (and their encoding) for it.
        if (next.text !== w.text) w.value = shape(next.body);
        w.text = next.text;
        w.index = next.index;
      }
    } catch {
      // A failed read ends the watch; the next question reads afresh (and answers SERVFAIL if it fails too).
    } finally {
      watches.delete(path);
    }
  };
  const shared = (path: string): Promise<Read> => {
    if (!o.allowStale) return read(path);
    const pending = inFlight.get(path);
    if (pending) return pending;
    const started = read(path).finally(() => inFlight.delete(path));
    inFlight.set(path, started);
    return started;
  };
  const remoteTimeoutMs = o.remoteTimeoutMs ?? REMOTE_TIMEOUT_MS;
  const read = async (path: string, blocking?: string): Promise<Read> => {
    const params = [consistency, blocking].filter((p) => p).join("&");
    const sep = path.includes("?") ? "&" : "?";
    const url = `http://dns.internal${path}${params ? sep + params : ""}`;
    const send = (signal: AbortSignal) => o.fetch(new Request(url, { signal }));
    // A blocking read has its own deadline (its wait); a plain one from another datacenter has the asker's.
    const response =
      blocking === undefined && REMOTE.test(path)
        ? await remoteRead(path, send, aborter.signal, remoteTimeoutMs)
        : await send(aborter.signal);
    const contact = Number(response.headers.get("x-consul-lastcontact") ?? "0");
    if (o.allowStale && o.onStaleRead) o.onStaleRead(contact);
    const index = response.headers.get("x-consul-index") ?? undefined;
    if (response.status === 404 || response.status === 403) {
      await response.body?.cancel();
      return { body: undefined, index, text: "" };
    }
    const text = await response.text();
    if (!response.ok) {
      if (unknownDatacenter(response.status, text)) return { body: undefined, index: undefined, text: "" };
      throw new ViewError(`${path}: ${response.status} ${text.trim()}`);
    }
    return { body: JSON.parse(text), index, text };
  };
  return {
    close() {
      aborter.abort();
    },
    async instances(service, tag, datacenter) {
      const q = query({ tag, dc: datacenter });
      return get(`/v1/health/service/${encodeURIComponent(service)}${q}`, (body) =>
        ((body as HealthEntryJson[] | undefined) ?? []).map(toInstance),
      );
    },
    async node(name, datacenter) {
      const dc = query({ dc: datacenter });
      const found = await get(`/v1/catalog/node/${encodeURIComponent(name)}${dc}`, (body) => {
        const n = (body as { Node?: HealthEntryJson["Node"] } | null | undefined)?.Node;
        return n ? toNode(n) : undefined;
      });
      if (!found) return undefined;
      const checks = await get(`/v1/health/node/${encodeURIComponent(name)}${dc}`, (body) =>
        ((body as HealthEntryJson["Checks"]) ?? []).map(toCheck),
      );
      return { node: found, checks };
    },
    async nodes() {
      return get("/v1/catalog/nodes", (body) =>
        ((body as HealthEntryJson["Node"][] | undefined) ?? []).map(toNode),
      );
    },
    async query(idOrName, source, datacenter) {
      // Prepared queries choose their own consistency; `_ip` is the DNS asker, passed as HTTP passes a proxy's.
      const path = `/v1/query/${encodeURIComponent(idOrName)}/execute${query({ dc: datacenter })}`;
      const send = (signal: AbortSignal) =>
        o.fetch(
          new Request(`http://dns.internal${path}`, {
            headers: source ? { "x-forwarded-for": source } : {},
            signal,
          }),
        );
      const response =
        datacenter === undefined
          ? await send(aborter.signal)
          : await remoteRead(path, send, aborter.signal, remoteTimeoutMs);
      if (response.status === 404 || response.status === 403) {
        await response.body?.cancel();
        return undefined;
      }
      if (!response.ok) {
        const text = await response.text();
        if (unknownDatacenter(response.status, text)) return undefined;
        throw new ViewError(`query ${idOrName}: ${response.status} ${text.trim()}`);
      }
      const body = (await response.json()) as {
        Service: string;
        Datacenter: string;
        DNS?: { TTL?: string } | null;
        Nodes?: HealthEntryJson[] | null;
      };
      const answer: QueryAnswer = {
        service: body.Service,
        datacenter: body.Datacenter,
        ttlMs: body.DNS?.TTL ? ttlOf(body.DNS.TTL) : undefined,
        instances: (body.Nodes ?? []).map(toInstance),
      };
      return answer;
    },
  };
}

function toNode(n: HealthEntryJson["Node"]): NodeRecord {
  return { name: n.Node, address: n.Address, datacenter: n.Datacenter ?? "", meta: n.Meta ?? {} };
}

function toCheck(c: { CheckID: string; Status: string }): { checkId: string; status: CheckStatus } {
  return { checkId: c.CheckID, status: c.Status };
}

function toInstance(e: HealthEntryJson): Instance {
  const checks = (e.Checks ?? []).map(toCheck);
  const warning = checks.some((c) => c.status === "warning");
  const weights = e.Service.Weights ?? {};
  return {
    node: toNode(e.Node),
    serviceAddress: e.Service.Address ?? "",
    port: e.Service.Port ?? 0,
    weight: Math.max(0, Math.min(65_535, (warning ? weights.Warning : weights.Passing) ?? 1)),
    checks,
  };
}

/** `?tag=&dc=` of the given ones, "" for none. */
function query(params: Record<string, string | undefined>): string {
  const given = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  if (given.length === 0) return "";
  return `?${given.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`;
}

const REMOTE = /[?&]dc=/;
/** Within dig's default 5 s per try, with room for the answer to travel back. */
const REMOTE_TIMEOUT_MS = 3_000;

/** How the API answers a datacenter no route leads to (Consul's RPC error text): the name does not exist. */
function unknownDatacenter(status: number, text: string): boolean {
  return status === 500 && text.startsWith("No path to datacenter");
}

/**
 * A read of another datacenter, given up (and cancelled) after `timeoutMs`: its failure or its silence is a
 * ViewError, SERVFAIL. The deadline is a timer raced with the read, so it holds whether or not the route
 * the request takes heeds its signal.
 */
async function remoteRead(
  path: string,
  send: (signal: AbortSignal) => Promise<Response> | Response,
  closed: AbortSignal,
  timeoutMs: number,
): Promise<Response> {
  const cancel = new AbortController();
  const onClose = () => cancel.abort();
  closed.addEventListener("abort", onClose, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      cancel.abort();
      reject(new ViewError(`${path}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve(send(cancel.signal)), deadline]);
  } catch (err) {
    throw err instanceof ViewError ? err : new ViewError(`${path}: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
    closed.removeEventListener("abort", onClose);
  }
}

const MAX_CACHED = 10_000;
/** At most this many names kept current by blocking queries; others are read per question. */
const MAX_WATCHED = 1_000;
const WATCH_WAIT = "5s";
const WATCH_IDLE_MS = 60_000;

interface Read {
  body: unknown;
  /** X-Consul-Index, when the read is one a blocking query can follow. */
  index: string | undefined;
  /** The body as sent ("" for nothing visible), to tell an unchanged answer from a changed one. */
  text: string;
}

interface Watch {
  value: unknown;
  index: string;
  askedAt: number;
  text: string;
}

/** The query's DNS.TTL; a TTL that does not parse is ignored, as the agent's own setting then applies. */
function ttlOf(text: string): number | undefined {
  try {
    return parseDurationMs(text);
  } catch {
    return undefined;
  }
}
