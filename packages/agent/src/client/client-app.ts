import {
  type ApiEnv,
  type ClusterBackend,
  createApi,
  type EventBackend,
  ignoresDatacenter,
  requestedDatacenter,
} from "@cairn/api";
import type { Hono } from "hono";
import type { Logger } from "pino";
import type { TunnelPool } from "../tunnel/pool.js";
import { requestToken } from "../tunnel/request-token.js";
import type { ClientAclEnforcer } from "./acl/client-enforcer.js";

export interface ClientAppOptions {
  nodeName: string;
  datacenter: string;
  /** The local agent's /v1/agent routes. */
  agentRoutes: Hono<ApiEnv>;
  /** /v1/agent/{members,join,leave,force-leave} over the agent's gossip pools. */
  membershipRoutes: Hono<ApiEnv>;
  /** The user events this agent received over gossip: /v1/event/* is answered here, as on any agent. */
  events: EventBackend;
  pool: TunnelPool;
  /** With ACLs on: tokens resolved through a server, enforced by the agent's own endpoints. */
  acl?: ClientAclEnforcer;
  logger: Logger;
  now: () => number;
}

type Fetch = (request: Request) => Response | Promise<Response>;

/**
 * A client agent's HTTP API, as a Consul client serves it: `/v1/agent/...` and `/v1/event/...` from the agent
 * itself (its services, checks, members, tokens, metrics, logs, the events it received), everything else from
 * a server through the tunnel.
 */
export function clientFetch(o: ClientAppOptions): Fetch {
  // The API app lends its request context (token, namespace, query, dc check) and error rendering to the
  // agent routes; its other routes are never reached, since only /v1/agent/ paths come to it.
  const agentApp = createApi({
    backend: UNSERVED,
    events: o.events,
    nodeName: o.nodeName,
    datacenter: o.datacenter,
    logger: o.logger,
    now: o.now,
    ...(o.acl ? { acl: o.acl } : {}),
  });
  agentApp.route("/v1/agent", o.membershipRoutes);
  agentApp.route("/v1/agent", o.agentRoutes);
  const acl = o.acl;
  // Routes authorize synchronously: the request's token is resolved (or found cached) before they run.
  const local: Fetch = acl
    ? async (request) => {
        await acl.prepare(requestToken(request.url, request.headers));
        return agentApp.fetch(request);
      }
    : agentApp.fetch;
  return (request) => (isLocal(request.url, o.datacenter) ? local(request) : o.pool.forward(request));
}

/** What the agent answers itself: its own endpoints, and the events gossip brought it. */
const LOCAL_PREFIXES = ["/v1/agent", "/v1/event"];

/** A request for another datacenter (an event fired there, say) goes through a server, which forwards it. */
function isLocal(url: string, datacenter: string): boolean {
  const { path, dc } = requestedDatacenter(url);
  if (!LOCAL_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return false;
  return dc === undefined || dc === datacenter || ignoresDatacenter(path);
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
