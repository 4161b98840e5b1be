import { type KnownForm, VARY_ACCEPT_ENCODING, withKnownForm } from "./known-form.js";

/** A response built once and sent as is, possibly to many requests. */
export interface PreparedAnswer extends KnownForm {
  readonly status: 200 | 404;
  readonly body: Uint8Array<ArrayBuffer> | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly reusable: true;
}

/** `headers` is the answer's from here on (frozen, with Vary added): pass a fresh object. */
export function prepareAnswer(
  status: 200 | 404,
  body: Uint8Array<ArrayBuffer> | string | null,
  headers: Record<string, string>,
): PreparedAnswer {
  return {
    status,
    body: typeof body === "string" ? Buffer.from(body) : body,
    // Vary is set here, once, so the HTTP edge needs not add it to each response (gzip.ts).
    headers: Object.freeze(Object.assign(headers, VARY_ACCEPT_ENCODING)),
    reusable: true,
  };
}

/**
 * The answer as a Response with already-encoded bytes and plain-object headers, bypassing the Context's
 * header set: @hono/node-server writes such a Response straight to Node's ServerResponse, while one built
 * through `c.header()` goes through a WHATWG Headers object and its conversion back to Node headers.
 */
export function sendPrepared(answer: PreparedAnswer): Response {
  return withKnownForm(new Response(answer.body, { status: answer.status, headers: answer.headers }), answer);
}
