import type { Handler, Hono } from "hono";
import type { ApiEnv } from "./env.js";
import { methodNotAllowed } from "./errors.js";

type Method = "GET" | "PUT" | "POST" | "DELETE";

/**
 * Registers one handler per allowed method on `path`. As in Consul, OPTIONS answers 200 with an Allow
 * header and any other method gets a 405 with the same header.
 */
export function route(
  app: Hono<ApiEnv>,
  path: string,
  handlers: Partial<Record<Method, Handler<ApiEnv>>>,
): void {
  const table: Partial<Record<string, Handler<ApiEnv>>> = handlers;
  const allowed = Object.keys(handlers);
  const allowHeader = ["OPTIONS", ...allowed].join(",");
  app.all(path, (c, next) => {
    const handler = table[c.req.method];
    if (handler !== undefined) return handler(c, next);
    if (c.req.method === "OPTIONS") return c.body(null, 200, { Allow: allowHeader });
    throw methodNotAllowed(c.req.method, allowed);
  });
}
