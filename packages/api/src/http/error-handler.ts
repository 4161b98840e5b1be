import { DomainError } from "@cairn/fsm";
import type { Context } from "hono";
import { LeaderBusyError, NoClusterLeaderError, PermissionDeniedError } from "../backend.js";
import type { ApiEnv } from "./env.js";
import { HttpError, statusOf } from "./errors.js";

const TEXT = { "Content-Type": "text/plain; charset=utf-8" };

/**
 * Maps anything a route throws to Consul's plain-text one-line error responses. Only faults that are not
 * an HttpError, a DomainError (mapped by its kind) or a known backend condition are 500s, and those are logged at error level.
 */
export function handleError(err: unknown, c: Context<ApiEnv>): Response {
  if (err instanceof HttpError) {
    if (err.allow !== undefined) c.header("Allow", err.allow.join(","));
    return c.body(oneLine(err.message), err.status, TEXT);
  }
  if (err instanceof DomainError) return c.body(oneLine(err.message), statusOf(err.kind), TEXT);
  if (err instanceof PermissionDeniedError) return c.body("Permission denied", 403, TEXT);
  if (err instanceof NoClusterLeaderError) {
    c.get("log")?.warn({ method: c.req.method, path: c.req.path }, "no cluster leader");
    return c.body("No cluster leader", 500, TEXT);
  }
  if (err instanceof LeaderBusyError) {
    c.get("log")?.warn({ method: c.req.method, path: c.req.path }, "write refused: the leader is busy");
    c.header("Retry-After", "1");
    return c.body(err.message, 429, TEXT);
  }
  const message = err instanceof Error ? err.message : String(err);
  c.get("log")?.error({ method: c.req.method, path: c.req.path, err }, "request failed");
  return c.body(oneLine(message || "An unexpected error occurred"), 500, TEXT);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ");
}

/** Consul's answer for a path no endpoint serves. */
export function handleNotFound(c: Context<ApiEnv>): Response {
  const reason = c.req.path.includes("/v1/")
    ? "Invalid URL path: not a recognized HTTP API endpoint"
    : "Invalid URL path: if attempting to use the HTTP API, ensure the path starts with '/v1/'";
  return c.body(reason, 404, TEXT);
}
