import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "../http/env.js";
import { HttpError } from "../http/errors.js";

/**
 * `?dc=` naming another datacenter would be forwarded there; Cairn knows only its own (no WAN federation
 * yet), so it answers as Consul does for a datacenter it has no route to.
 */
export function datacenterMiddleware(datacenter: string): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const dc = c.var.query.get("dc");
    if (dc && dc !== datacenter) throw new HttpError(500, "No path to datacenter");
    await next();
  };
}
