import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "../http/env.js";
import { Query } from "../http/query.js";

/** Parses the query string once per request for every later step. */
export const queryMiddleware: MiddlewareHandler<ApiEnv> = async (c, next) => {
  c.set("query", Query.fromUrl(c.req.url));
  await next();
};
