import {
  type ApiEnv,
  type ClusterBackend,
  createApi,
  type MembershipBackend,
  membershipRoutes,
} from "@cairn/api";
import type { Hono } from "hono";
import type { Logger } from "pino";
import type { TunnelPool } from "../tunnel/pool.js";

export interface ClientAppOptions {
  nodeName: string;
  datacenter: string;
  /** The local agent's /v1/agent routes. */
  agentRoutes: Hono<ApiEnv>;
  /** /v1/agent/{members,join,leave,force-leave} over the agent's gossip pools. */
  membership: MembershipBackend;
  pool: TunnelPool;
  logger: Logger;
  now: () => number;
}

type Fetch = (request: Request) => Response | Promise<Response>;

/**
 * A client agent's HTTP API, as a Consul client serves it: `/v1/agent/...` from the agent itself (its
 * services, checks, members, tokens, metrics, logs), everything else from a server through the tunnel.
 */
export function clientFetch(o: ClientAppOptions): Fetch {
  // The API app lends its request context (token, namespace, query, dc check) and error rendering to the
  // agent routes; its other routes are never reached, since only /v1/agent/ paths come to it.
  const agentApp = createApi({
    backend: UNSERVED,
    nodeName: o.nodeName,
    datacenter: o.datacenter,
    logger: o.logger,
    now: o.now,
  });
  agentApp.route("/v1/agent", membershipRoutes(o.membership, { nodeName: o.nodeName }));
  agentApp.route("/v1/agent", o.agentRoutes);
  return (request) => (isAgentPath(request.url) ? agentApp.fetch(request) : o.pool.forward(request));
}

function isAgentPath(url: string): boolean {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  const path = query < 0 ? url.slice(start) : url.slice(start, query);
  return path === "/v1/agent" || path.startsWith("/v1/agent/");
}

const unserved = (): never => {
  throw new Error("a client agent forwards this request to a server");
};

/** The cluster backend of the agent app, which only serves /v1/agent routes: none of it is ever used. */
const UNSERVED: ClusterBackend = {
  apply: unserved,
  readBarrier: unserved,
  renewSession: unserved,
  leader: unserved,
  peers: unserved,
  snapshotSave: unserved,
  snapshotRestore: unserved,
  get store(): never {
    return unserved();
  },
};
