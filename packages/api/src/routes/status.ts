import { Hono } from "hono";
import type { ApiEnv } from "../http/env.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";

/** /v1/status/leader and /v1/status/peers: the leader's address (a JSON string) and the voter addresses. */
export function statusRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/leader", { GET: async (c) => jsonResponse(c, await ctx.backend.leader()) });
  route(app, "/peers", { GET: async (c) => jsonResponse(c, await ctx.backend.peers()) });
  return app;
}
