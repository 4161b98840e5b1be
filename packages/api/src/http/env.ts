import type { IncomingMessage } from "node:http";
import type { Logger } from "pino";
import type { Query } from "./query.js";

/**
 * Per-request values the shared middleware fills in for the routes. Read them with `c.get("name")`, not
 * `c.var.name`: Hono's `var` getter copies every variable into a new object on each access (a profile of
 * KV PUTs found it among the leader's hottest functions).
 */
export interface ApiEnv {
  Variables: {
    query: Query;
    /** ACL token secret; empty for the anonymous token. Never logged. */
    token: string;
    namespace: string;
    /**
     * The node of the agent the request came through: this agent, or the client agent that forwarded it
     * (`near=_agent`, a new session's default node, a prepared query's source are relative to it).
     */
    agentNode: string;
    log: Logger;
    /** The body, when a middleware had to read it before the route (see readBodyLimited). */
    body?: Buffer;
  };
}

/**
 * The Node request under @hono/node-server (its env carries it), whose parsed headers and body stream are
 * cheaper to read than the WHATWG Request's; undefined under any other adapter or an in-process fetch.
 */
export function nodeRequest(env: unknown): IncomingMessage | undefined {
  return (env as { incoming?: IncomingMessage } | undefined)?.incoming;
}
