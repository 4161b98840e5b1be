import type { Logger } from "pino";

/** One debug line for a finished request. Token values never reach the log. */
export function logRequest(logger: Logger, method: string, url: string, status: number, ms: number): void {
  logger.debug(
    {
      method,
      url: redactTokens(url),
      status,
      ms: Math.round(ms * 1000) / 1000,
    },
    "request",
  );
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
