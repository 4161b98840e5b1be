import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { ApiEnv } from "../http/env.js";

/** Attaches the logger and writes one debug line per request. Token values never reach the log. */
export function requestLog(logger: Logger, now: () => number): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    c.set("log", logger);
    const start = now();
    await next();
    if (!logger.isLevelEnabled("debug")) return;
    logger.debug(
      {
        method: c.req.method,
        url: redactTokens(c.req.url),
        status: c.res.status,
        ms: Math.round((now() - start) * 1000) / 1000,
      },
      "request",
    );
  };
}

/** The path and query of a URL with every `token` parameter value replaced by `<hidden>`. */
export function redactTokens(url: string): string {
  const u = new URL(url);
  if (u.searchParams.has("token")) {
    const params = new URLSearchParams(u.search);
    params.set("token", "<hidden>");
    return `${u.pathname}?${params.toString()}`;
  }
  return `${u.pathname}${u.search}`;
}
