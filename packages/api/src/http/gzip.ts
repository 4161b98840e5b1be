import type { IncomingMessage } from "node:http";
import { promisify } from "node:util";
import { gzip as gzipCallback } from "node:zlib";

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

const gzip = promisify(gzipCallback);

/**
 * Below this a body goes out as it is: it fits one packet anyway, and compressing it would only cost CPU on
 * the hottest paths (a KV read is a few hundred bytes). Consul compresses every size; a client that asked
 * for gzip reads either form, since Content-Encoding says which it got.
 */
const MIN_BYTES = 1_024;

/** Answers worth compressing: the API's JSON and the web UI's text. A log stream (text/plain) never ends. */
const COMPRESSIBLE = /^(application\/(json|javascript)|text\/(html|css|javascript)|image\/svg\+xml)\b/i;

/**
 * Bodies encoded once and served many times (memoized list reads, the agent cache's entries), by the
 * response that carries each: their gzip form is made once and kept for as long as the body lives.
 */
const reusable = new WeakMap<Response, Uint8Array>();
const compressed = new WeakMap<Uint8Array, Promise<Buffer>>();

/** Marks `response` as carrying `body`, a buffer that other responses will carry again unchanged. */
export function withReusableBody(response: Response, body: Uint8Array): Response {
  reusable.set(response, body);
  return response;
}

/** The `Vary` member every answer goes out with; answers prepared once carry it from the start. */
export const VARY_ACCEPT_ENCODING = { Vary: "Accept-Encoding" } as const;

/** An answer built once and sent many times, as the edge may read it without touching the Response. */
interface PreparedForm {
  readonly status: number;
  readonly body: Uint8Array | null;
  /** Plain headers that already include `VARY_ACCEPT_ENCODING`. */
  readonly headers: Readonly<Record<string, string>>;
}

const prepared = new WeakMap<Response, PreparedForm>();

/**
 * Marks `response` as sending `form`. The edge then decides from `form` alone: reading a lightweight
 * response's headers would convert them into a WHATWG Headers object, per answer, on the path that wakes
 * thousands of blocking queries at once.
 */
export function withPreparedForm(response: Response, form: PreparedForm): Response {
  prepared.set(response, form);
  return response;
}

/**
 * The HTTP edge's compression, as Consul wraps its API in a gzip handler: an answer to a client that accepts
 * gzip goes out gzip-encoded, and every answer carries `Vary: Accept-Encoding`. Applied once, outermost, so
 * what servers and client agents pass each other internally stays plain.
 */
export function gzipResponses(fetch: Fetch): Fetch {
  return async (request, env) => {
    const response = await fetch(request, env);
    const form = prepared.get(response);
    if (form !== undefined) return sendPreparedForm(request, env, response, form);
    // Only status and headers are read unless the body is compressed: reading anything else would turn
    // @hono/node-server's lightweight response into a full one and lose its direct write.
    try {
      addVary(response.headers);
    } catch {
      // Immutable headers (a response as fetch() returned it): they go out as they are.
    }
    if (!compressible(request, env, response)) return response;
    const kept = reusable.get(response);
    let body: Buffer;
    if (kept !== undefined) {
      if (kept.byteLength < MIN_BYTES) return response;
      body = await gzipOnce(kept);
    } else {
      const plain = new Uint8Array(await response.arrayBuffer());
      if (plain.byteLength < MIN_BYTES)
        return new Response(plain, { status: response.status, headers: response.headers });
      body = await gzip(plain);
    }
    const headers = new Headers(response.headers);
    headers.set("Content-Encoding", "gzip");
    headers.delete("Content-Length");
    return new Response(body, { status: response.status, headers });
  };
}

async function sendPreparedForm(
  request: Request,
  env: unknown,
  response: Response,
  form: PreparedForm,
): Promise<Response> {
  const body = form.body;
  if (body === null || body.byteLength < MIN_BYTES || request.method === "HEAD" || form.status !== 200)
    return response;
  if (form.headers["Content-Encoding"] !== undefined) return response;
  if (!COMPRESSIBLE.test(form.headers["Content-Type"] ?? "")) return response;
  if (!acceptsGzip(acceptEncoding(request, env))) return response;
  return new Response(await gzipOnce(body), {
    status: form.status,
    headers: { ...form.headers, "Content-Encoding": "gzip" },
  });
}

/** The request's Accept-Encoding; under @hono/node-server from Node's parsed headers, without a Headers copy. */
function acceptEncoding(request: Request, env: unknown): string | null {
  const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming === undefined) return request.headers.get("accept-encoding");
  const value = incoming.headers["accept-encoding"];
  return value ?? null;
}

function addVary(headers: Headers): void {
  const vary = headers.get("vary");
  if (vary === null) headers.set("Vary", "Accept-Encoding");
  else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary))
    headers.set("Vary", `${vary}, Accept-Encoding`);
}

function compressible(request: Request, env: unknown, response: Response): boolean {
  if (request.method === "HEAD") return false;
  if (response.status < 200 || response.status === 204 || response.status === 304) return false;
  if (response.headers.has("content-encoding")) return false;
  if (!COMPRESSIBLE.test(response.headers.get("content-type") ?? "")) return false;
  return acceptsGzip(acceptEncoding(request, env));
}

/** Whether an Accept-Encoding header admits gzip (named, or `*`, with a q-value above 0). */
export function acceptsGzip(header: string | null): boolean {
  if (header === null) return false;
  let star: boolean | undefined;
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";").map((s) => s.trim());
    const q = params.find((p) => /^q=/i.test(p));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    const coding = name.toLowerCase();
    if (coding === "gzip" || coding === "x-gzip") return accepted;
    if (coding === "*") star = accepted;
  }
  return star ?? false;
}

function gzipOnce(body: Uint8Array): Promise<Buffer> {
  let done = compressed.get(body);
  if (done === undefined) {
    done = gzip(body);
    compressed.set(body, done);
  }
  return done;
}
