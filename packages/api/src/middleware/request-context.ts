import type { Context, MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import { afterAnswer } from "../http/after-answer.js";
import type { ApiEnv } from "../http/env.js";
import { nodeRequest } from "../http/env.js";
import { unpark } from "../http/parked.js";
import { Query } from "../http/query.js";
import { ignoresDatacenter, requireLocalDatacenter } from "./datacenter.js";
import { extractNamespace } from "./namespace.js";
import { logRequest } from "./request-log.js";
import { extractToken } from "./token.js";

/**
 * Prepares what every endpoint shares — logger, query string, datacenter check, token, namespace — once
 * per request, and logs the request at debug level when it ends. A single middleware on purpose: each
 * layer of Hono's chain is a suspended async frame for as long as a blocking query waits, and thousands
 * of those wait at once.
 */
/**
 * Set by a client agent on the requests it forwards to a server: the node they are relative to. Anyone may
 * send it; it only changes defaults a caller could also set in the request itself.
 */
export const AGENT_NODE_HEADER = "x-cairn-agent-node";

export function requestContext(
  datacenter: string,
  nodeName: string,
  logger: Logger,
  now: () => number,
  /** With ACLs on: the namespace a token belongs to, inherited by requests that name none. */
  tokenNamespace?: (secret: string) => string | undefined,
): MiddlewareHandler<ApiEnv> {
  return (c, next) => {
    c.set("log", logger);
    const query = Query.fromUrl(c.req.url);
    c.set("query", query);
    if (!ignoresDatacenter(c.req.path)) requireLocalDatacenter(query.get("dc"), datacenter);
    const header = headerReader(c);
    const token = extractToken(query.get("token"), header);
    c.set("token", token);
    c.set("agentNode", header(AGENT_NODE_HEADER) || nodeName);
    c.set(
      "namespace",
      extractNamespace(query.get("ns"), header, tokenNamespace && (() => tokenNamespace(token))),
    );
    if (!logger.isLevelEnabled("debug")) return next();
    const start = now();
    return next().then(() => logWhenAnswered(logger, c.req.method, c.req.url, c.res, start, now));
  };
}

/**
 * Under @hono/node-server, reads Node's already-parsed header object: `c.req.header()` would build a
 * WHATWG Headers copy for every request.
 */
function headerReader(c: Context<ApiEnv>): (name: string) => string | undefined {
  const headers = nodeRequest(c.env)?.headers;
  if (headers === undefined) return (name) => c.req.header(name);
  return (name) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
}

/**
 * A parked blocking query (parked.ts) is logged once answered, without awaiting it and without holding the
 * Context (a closure made where the Context is in scope would keep it), so that it stays parked.
 */
function logWhenAnswered(
  logger: Logger,
  method: string,
  url: string,
  res: Response,
  start: number,
  now: () => number,
): void {
  void afterAnswer(unpark(res), (answer) => logRequest(logger, method, url, answer.status, now() - start));
}
