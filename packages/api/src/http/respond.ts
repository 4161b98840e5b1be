import { writeJson } from "@cairn/json";
import type { Context } from "hono";
import { scopeFilter } from "./default-scope.js";
import { VARY_ACCEPT_ENCODING, withKnownForm, withReusableBody } from "./known-form.js";
import { prepareAnswer, sendPrepared } from "./prepared-answer.js";
import { jsonReadHeaders, type ReadMeta, readMetaHeaders } from "./read-meta.js";

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
  return stringResponse(c, encodeResponse(value), status);
}

/** The JSON `true` and `false` that most writes answer, prepared once (prepared-answer.ts). */
const TRUE = prepareAnswer(200, "true", { ...JSON_TYPE });
const FALSE = prepareAnswer(200, "false", { ...JSON_TYPE });

/**
 * `true` or `false` as JSON, for a route that sets no header of its own: a prepared answer, which the HTTP
 * edge writes as one buffer rendered once a second (wire.ts) rather than through Node's header handling on
 * every write.
 */
export function booleanResponse(value: boolean): Response {
  return sendPrepared(value ? TRUE : FALSE);
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
  if (typeof body === "string") return stringResponse(c, body, status);
  return withReusableBody(c.body(body, status, JSON_TYPE), body);
}

/** A JSON body the tunnel may take as it is (known-form.ts) rather than read back out of the Response. */
function stringResponse(c: Context, body: string, status: 200 | 409 | 429): Response {
  return withKnownForm(c.body(body, status, JSON_TYPE), { status, body, reusable: false });
}

/** A read that found nothing, answered with an empty 404 and the read's index headers, without the Context. */
export function emptyNotFound(meta: ReadMeta): Response {
  return new Response(null, { status: 404, headers: readMetaHeaders(meta) });
}

/**
 * A read's JSON answer built without the Context, as a parked blocking query's is (blocking-query.ts): the
 * body and the read's index headers, complete (Vary included) so the edge adds nothing.
 */
export function readJsonResponse(body: string, meta: ReadMeta): Response {
  const headers = Object.assign(jsonReadHeaders(meta), VARY_ACCEPT_ENCODING);
  return withKnownForm(new Response(body, { status: 200, headers }), {
    status: 200,
    body,
    headers,
    reusable: false,
  });
}
