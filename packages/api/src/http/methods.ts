import type { Handler, Hono } from "hono";
import type { ApiEnv } from "./env.js";
import { methodNotAllowed } from "./errors.js";

type Method = "GET" | "PUT" | "POST" | "DELETE";

/**
 * Registers one handler per allowed method on `path`; any other method gets Consul's 405 with an Allow
 * header (which, as in Consul, also lists OPTIONS).
 */
export function route(
  app: Hono<ApiEnv>,
  path: string,
  handlers: Partial<Record<Method, Handler<ApiEnv>>>,
): void {
  const table: Partial<Record<string, Handler<ApiEnv>>> = handlers;
  const allowed = Object.keys(handlers);
  app.all(path, (c, next) => {
    const handler = table[c.req.method];
    if (handler === undefined) throw methodNotAllowed(c.req.method, allowed);
    return handler(c, next);
  });
}
