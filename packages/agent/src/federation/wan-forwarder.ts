import {
  blockingWaitMs,
  type DatacenterForward,
  ignoresDatacenter,
  requestedDatacenter,
  WAIT_JITTER_FRACTION,
} from "@cairn/api";
import type { OutgoingTls } from "@cairn/raft";
import type { Logger } from "pino";
import type { AgentMember } from "../membership/index.js";
import type { Fetch } from "../metrics/instrument.js";
import type { ServerRef } from "../tunnel/connection.js";
import { TunnelPool } from "../tunnel/pool.js";

export interface WanForwarderOptions {
  /** This server's datacenter: requests for it are answered here. */
  datacenter: string;
  /** The WAN pool's servers of a datacenter, alive ones first (AgentMembership.datacenterServers). */
  servers: (dc: string) => readonly AgentMember[];
  /** The agent's `default` token, sent with requests that carry none (Consul's servers forward with it). */
  defaultToken: () => string;
  log: Logger;
  /** How to dial a server of `dc` (TLS with verify_outgoing, checking server.<dc>.<domain>). */
  tls?: (dc: string) => OutgoingTls | undefined;
  /** How long dialing one remote server may take. */
  connectTimeoutMs?: number;
  /** How long a request that does not block may take in the remote datacenter, connecting included. */
  requestTimeoutMs?: number;
}

const CONNECT_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * A server's route to other datacenters, as Consul's RPC forwarding: a request naming another datacenter
 * (`?dc=`) goes, through the same tunnel client agents use, to a server of that datacenter known from the
 * WAN pool, and its answer (status, index and leader headers, body) comes back unchanged. Each datacenter
 * has its own connection pool: a server that cannot be reached is skipped for the next; reads are retried
 * on another server when a connection breaks under them, writes are not (their outcome is unknown). Every
 * forwarded request has a deadline (a blocking query's covers its wait), so a datacenter cut off answers
 * with a clear error instead of hanging.
 */
export class WanForwarder {
  private readonly pools = new Map<string, TunnelPool>();
  private closed = false;

  constructor(private readonly o: WanForwarderOptions) {}

  /** Sends `request` to datacenter `dc`; undefined when no server of it is known. */
  readonly forward: DatacenterForward = (dc, request) => {
    if (this.closed || dc === this.o.datacenter || this.o.servers(dc).length === 0) return undefined;
    return this.send(dc, request);
  };

  /** `fetch`, with requests whose `?dc=` names another known datacenter answered there. */
  wrap(fetch: Fetch): Fetch {
    return (request, env) => {
      const { path, dc } = requestedDatacenter(request.url);
      if (dc === undefined || dc === this.o.datacenter || ignoresDatacenter(path)) return fetch(request, env);
      return this.forward(dc, request) ?? fetch(request, env);
    };
  }

  close(): void {
    this.closed = true;
    for (const pool of this.pools.values()) pool.close();
    this.pools.clear();
  }

  private async send(dc: string, request: Request): Promise<Response> {
    const timeoutMs = deadlineOf(request.url, this.o.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    const cancel = () => abort.abort();
    request.signal.addEventListener("abort", cancel, { once: true });
    try {
      const response = await this.pool(dc).forward(request, abort.signal);
      if (!timedOut) return response;
      this.o.log.warn({ datacenter: dc, timeoutMs }, "a request forwarded to another datacenter timed out");
      return new Response(
        `rpc error: datacenter ${JSON.stringify(dc)} did not answer within ${Math.round(timeoutMs / 1000)}s`,
        { status: 500, headers: { "content-type": "text/plain; charset=utf-8" } },
      );
    } finally {
      clearTimeout(timer);
      request.signal.removeEventListener("abort", cancel);
    }
  }

  private pool(dc: string): TunnelPool {
    let pool = this.pools.get(dc);
    if (pool === undefined) {
      pool = new TunnelPool({
        servers: () => serverRefs(this.o.servers(dc)),
        defaultToken: this.o.defaultToken,
        connectTimeoutMs: this.o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        scope: `datacenter ${JSON.stringify(dc)}`,
        tls: () => this.o.tls?.(dc),
        log: this.o.log.child({ datacenter: dc }),
      });
      this.pools.set(dc, pool);
    }
    return pool;
  }
}

/** The alive servers when there are any, else the failed ones (gossip may be behind): never a mix. */
function serverRefs(members: readonly AgentMember[]): ServerRef[] {
  const withRpc = members.filter((m) => m.rpcAddress !== undefined);
  const alive = withRpc.filter((m) => m.status === "alive");
  return (alive.length > 0 ? alive : withRpc).map((m) => ({
    name: m.name,
    rpcAddress: m.rpcAddress as string,
    id: m.id,
  }));
}

/** A snapshot saved or restored in another datacenter moves the whole state: minutes, not seconds. */
const SNAPSHOT_TIMEOUT_MS = 10 * 60_000;

/**
 * A blocking query (`index` > 0) may take its whole wait in the remote datacenter, a snapshot its transfer;
 * anything else `base`.
 */
function deadlineOf(url: string, base: number): number {
  if (requestedDatacenter(url).path.startsWith("/v1/snapshot")) return SNAPSHOT_TIMEOUT_MS;
  const waitMs = blockingWaitMs(url);
  // No blocking query, or one whose bad wait the remote refuses at once.
  if (waitMs === undefined || Number.isNaN(waitMs)) return base;
  return waitMs + waitMs / WAIT_JITTER_FRACTION + base;
}
