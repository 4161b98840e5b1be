import { afterAnswer, type ClusterBackend, type StateReader } from "@cairn/api";
import type { Command } from "@cairn/fsm";
import { eventLoopDelay } from "./event-loop-delay.js";
import type { Labels, Metrics } from "./registry.js";

/** Command types whose applies Consul times under their own names. */
const AREA_SAMPLES: Readonly<Record<string, string>> = {
  kv: "consul.kvs.apply",
  session: "consul.session.apply",
  txn: "consul.txn.apply",
  catalog: "consul.catalog.register",
};

/**
 * The cluster backend with its write path timed: every apply as `consul.raft.apply` (a counter) and its
 * latency as seen by the caller, `consul.raft.apply.time` (Raft's own commit time is `meterRaft`'s), plus the per-area samples Consul keeps
 * (`consul.kvs.apply`, `consul.txn.apply`, ...). Reads pass straight through.
 */
export function meterBackend(
  backend: ClusterBackend,
  metrics: Metrics,
  now = () => performance.now(),
): ClusterBackend {
  return {
    get store() {
      return backend.store;
    },
    readBarrier: (mode, maxStaleMs) => backend.readBarrier(mode, maxStaleMs),
    renewSession: (id, ns) => backend.renewSession(id, ns),
    leader: () => backend.leader(),
    peers: () => backend.peers(),
    snapshotSave: () => backend.snapshotSave(),
    snapshotRestore: (data) => backend.snapshotRestore(data),
    async apply(command: Command) {
      const start = now();
      try {
        return await backend.apply(command);
      } finally {
        const ms = now() - start;
        metrics.incrCounter("consul.raft.apply");
        metrics.addSample("consul.raft.apply.time", ms);
        const area = AREA_SAMPLES[command.type.slice(0, command.type.indexOf("."))];
        if (area !== undefined) metrics.addSample(area, ms, opLabels(command.type));
      }
    },
  };
}

/** One label object per command type (a bounded set), so the registry keys each series once. */
const opLabelSets = new Map<string, Labels>();

function opLabels(op: string): Labels {
  let labels = opLabelSets.get(op);
  if (labels === undefined) {
    labels = { op };
    opLabelSets.set(op, labels);
  }
  return labels;
}

export type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

/** Words of Consul's endpoint paths; any other path segment is a parameter (a key, an ID, a name). */
const PATH_WORDS = new Set(
  (
    "v1 kv agent catalog health session txn status snapshot operator coordinate acl event query config connect " +
    "discovery-chain namespace namespaces service services check checks register deregister pass warn fail update " +
    "maintenance self members metrics monitor reload join leave force-leave token tokens node nodes datacenters " +
    "state leader peers create destroy info renew list raft configuration peer transfer-leader autopilot " +
    "bootstrap policy policies role roles login logout binding-rule binding-rules auth-method auth-methods " +
    "node-services host keyring"
  ).split(" "),
);

const KV_PREFIX = "/v1/kv/";

/** Consul's `path` label: the route with its parameter parts replaced (`/v1/kv/*`, `/v1/agent/service/*`). */
export function routeLabel(pathname: string): string {
  // The busiest route by far, labelled without splitting the path.
  if (pathname.length > KV_PREFIX.length && pathname.startsWith(KV_PREFIX)) return "/v1/kv/*";
  const parts = pathname.split("/").filter((p) => p !== "");
  const out: string[] = [];
  for (const part of parts) {
    if (!PATH_WORDS.has(part) || (out[1] === "kv" && out.length >= 2)) {
      out.push("*");
      break;
    }
    out.push(part);
  }
  return `/${out.join("/")}`;
}

/** HTTP requests timed by route, method and status: `consul.api.http` (milliseconds). */
export function meterFetch(fetch: Fetch, metrics: Metrics, now = () => performance.now()): Fetch {
  eventLoopDelay();
  // One label object per method, route and status (a bounded set), so the registry sorts each only once.
  const labelSets = new Map<string, Labels>();
  // Not an async function, which would stay suspended (a frame and a register file) while a query is held.
  return (request, env) => {
    const start = now();
    return afterAnswer(fetch(request, env), (response) => record(request, response, start));
  };

  function record(request: Request, response: Response, start: number): Response {
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const query = url.indexOf("?", pathStart);
    const path = routeLabel(url.slice(pathStart, query < 0 ? undefined : query));
    const combo = `${request.method} ${response.status} ${path}`;
    let labels = labelSets.get(combo);
    if (labels === undefined) {
      labels = { method: request.method, path, code: String(response.status) };
      labelSets.set(combo, labels);
    }
    metrics.addSample("consul.api.http", now() - start, labels);
    return response;
  }
}

/** Gauges read when metrics are read: heap, and on a server blocked queries waiting and sessions. */
export function sampleGauges(metrics: Metrics, store: StateReader | undefined): void {
  const memory = process.memoryUsage();
  metrics.setGauge("consul.runtime.alloc_bytes", memory.heapUsed);
  metrics.setGauge("consul.runtime.sys_bytes", memory.rss);
  metrics.setGauge("consul.runtime.heap_total_bytes", memory.heapTotal);
  const delay = eventLoopDelay();
  metrics.setGauge("cairn.runtime.event_loop_delay_p99_ms", delay.percentile(99) / 1e6);
  metrics.setGauge("cairn.runtime.event_loop_delay_max_ms", delay.max / 1e6);
  if (store === undefined) return;
  metrics.setGauge("consul.rpc.queries_blocking", store.watches.waiting);
  metrics.setGauge("consul.session_ttl.active", store.view().sessionList().value.length);
}
