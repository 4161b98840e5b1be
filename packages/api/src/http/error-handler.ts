import { DomainError } from "@cairn/fsm";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "pino";
import { LeaderBusyError, NoClusterLeaderError, PermissionDeniedError } from "../backend.js";
import type { ApiEnv } from "./env.js";
import { HttpError, statusOf } from "./errors.js";
import { type ReadMeta, readMetaHeaders } from "./read-meta.js";

const TEXT = { "Content-Type": "text/plain; charset=utf-8" };

/** What an error answer needs of its request: where to log, and what to name in the log. */
export interface FailedRequest {
  readonly log: Logger | undefined;
  readonly method: string;
  readonly path: string;
}

/** An error's answer: a status, one line of text, and any header it adds. */
interface ErrorAnswer {
  status: ContentfulStatusCode;
  text: string;
  header?: readonly [name: string, value: string];
}

/**
 * Maps anything a route throws to Consul's plain-text one-line error responses. Only faults that are not
 * an HttpError, a DomainError (mapped by its kind) or a known backend condition are 500s, and those are logged at error level.
 */
export function handleError(err: unknown, c: Context<ApiEnv>): Response {
  const answer = errorAnswer(err, () => ({ log: c.get("log"), method: c.req.method, path: c.req.path }));
  if (answer.header !== undefined) c.header(answer.header[0], answer.header[1]);
  return c.body(answer.text, answer.status, TEXT);
}

/**
 * The same answer without a Hono Context: for a parked blocking query (parked.ts), whose Context is gone.
 * `extra` are headers the answer carries besides (a read's index headers, which Consul sets before refusing).
 */
export function errorResponse(
  err: unknown,
  request: FailedRequest,
  extra?: Record<string, string>,
): Response {
  const answer = errorAnswer(err, () => request);
  const headers: Record<string, string> = { ...extra, ...TEXT };
  if (answer.header !== undefined) headers[answer.header[0]] = answer.header[1];
  return new Response(answer.text, { status: answer.status, headers });
}

/** A refusal of what a read found (not found, not compilable), with the read's index headers. */
export function refusedRead(err: HttpError, meta: ReadMeta): Response {
  // An HttpError is answered without logging: no request to name.
  return errorResponse(err, { log: undefined, method: "", path: "" }, readMetaHeaders(meta));
}

function errorAnswer(err: unknown, request: () => FailedRequest): ErrorAnswer {
  if (err instanceof HttpError) {
    const allow = err.allow && (["Allow", err.allow.join(",")] as const);
    return { status: err.status, text: oneLine(err.message), ...(allow ? { header: allow } : {}) };
  }
  if (err instanceof DomainError) return { status: statusOf(err.kind), text: oneLine(err.message) };
  if (err instanceof PermissionDeniedError) return { status: 403, text: "Permission denied" };
  if (err instanceof NoClusterLeaderError) {
    const { log, method, path } = request();
    log?.warn({ method, path }, "no cluster leader");
    return { status: 500, text: "No cluster leader" };
  }
  if (err instanceof LeaderBusyError) {
    const { log, method, path } = request();
    log?.warn({ method, path }, "write refused: the leader is busy");
    return { status: 429, text: err.message, header: ["Retry-After", "1"] };
  }
  const message = err instanceof Error ? err.message : String(err);
  const { log, method, path } = request();
  log?.error({ method, path, err }, "request failed");
  return { status: 500, text: oneLine(message || "An unexpected error occurred") };
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
