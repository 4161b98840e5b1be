import { writeJson } from "@cairn/json";
import type { Context } from "hono";
import { scopeFilter } from "./default-scope.js";
import { withReusableBody } from "./gzip.js";

const JSON_TYPE = { "Content-Type": "application/json" };

/**
 * A response body as every JSON endpoint writes it: bigint-exact, and records in the default namespace
 * without `Namespace`/`Partition`, as Consul's open-source edition writes them (default-scope.ts).
 */
export function encodeResponse(value: unknown): string {
  return writeJson(value, scopeFilter);
}

/** A JSON response through `encodeResponse`. */
export function jsonResponse(c: Context, value: unknown, status: 200 | 409 | 429 = 200): Response {
  return c.body(encodeResponse(value), status, JSON_TYPE);
}

/**
 * A JSON response whose `Namespace` members are data, not a record's own namespace, and so are written
 * even when "default" (the compiled discovery chain names its targets' namespaces, as Consul's does).
 */
export function verbatimJsonResponse(c: Context, value: unknown): Response {
  return c.body(writeJson(value), 200, JSON_TYPE);
}

/**
 * A JSON response whose body the route already encoded (hot paths build their JSON directly, with the
 * namespace member from `scopedNamespace`). A buffer body is one a memo serves again: the HTTP edge keeps
 * its gzip form beside it.
 */
export function encodedJsonResponse(
  c: Context,
  body: string | Uint8Array<ArrayBuffer>,
  status: 200 | 409 = 200,
): Response {
  const response = c.body(body, status, JSON_TYPE);
  return typeof body === "string" ? response : withReusableBody(response, body);
}
