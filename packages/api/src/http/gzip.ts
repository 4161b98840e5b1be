import { promisify } from "node:util";
import { gzip as gzipCallback } from "node:zlib";
import { nodeRequest } from "./env.js";
import { type KnownForm, knownForm, varyWithAcceptEncoding } from "./known-form.js";

const gzip = promisify(gzipCallback);

/**
 * Below this a body goes out as it is: it fits one packet anyway, and compressing it would only cost CPU on
 * the hottest paths (a KV read is a few hundred bytes). Consul compresses every size; a client that asked
 * for gzip reads either form, since Content-Encoding says which it got.
 */
const MIN_BYTES = 1_024;

/** Answers worth compressing: the API's JSON and the web UI's text. A log stream (text/plain) never ends. */
const COMPRESSIBLE = /^(application\/(json|javascript)|text\/(html|css|javascript)|image\/svg\+xml)\b/i;

/** The gzip form of each reusable body (known-form.ts), made once and kept for as long as the body lives. */
const compressed = new WeakMap<Uint8Array, Promise<Buffer>>();

/**
 * The HTTP edge's compression (edge.ts), as Consul wraps its API in a gzip handler: the answer as it goes
 * out, gzip-encoded when the client accepts gzip and it is worth it, and with `Vary: Accept-Encoding`.
 * An answer whose complete headers are known and that goes out as it is comes back at once, the same object.
 */
export function gzipped(request: Request, env: unknown, response: Response): Response | Promise<Response> {
  const form = knownForm(response);
  if (form?.headers !== undefined) return gzippedKnownForm(request, env, response, form, form.headers);
  return encoded(request, env, response, form);
}

/** `gzipped` of a response whose headers are not known as a plain object: read from the Response. */
async function encoded(
  request: Request,
  env: unknown,
  response: Response,
  form: KnownForm | undefined,
): Promise<Response> {
  // Only status and headers are read unless the body is compressed: reading anything else would turn
  // @hono/node-server's lightweight response into a full one and lose its direct write.
  try {
    addVary(response.headers);
  } catch {
    // Immutable headers (a response as fetch() returned it): they go out as they are.
  }
  if (!compressible(request, env, response)) return response;
  let body: Buffer;
  if (form?.reusable && form.body instanceof Uint8Array) {
    if (form.body.byteLength < MIN_BYTES) return response;
    body = await gzipOnce(form.body);
  } else if (typeof form?.body === "string") {
    // A JSON string the route still holds: not read back out of the Response (known-form.ts).
    const plain = Buffer.from(form.body);
    if (plain.byteLength < MIN_BYTES) return response;
    body = await gzip(plain);
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
}

/** A response whose complete headers are known (Vary included): decided and compressed from its form alone. */
function gzippedKnownForm(
  request: Request,
  env: unknown,
  response: Response,
  form: KnownForm,
  headers: Readonly<Record<string, string>>,
): Response | Promise<Response> {
  const { body } = form;
  // Measured, not encoded: most answers go out as they are, and the wire encodes a string body once (wire.ts).
  const length = typeof body === "string" ? Buffer.byteLength(body) : (body?.byteLength ?? 0);
  if (body === null || length < MIN_BYTES || request.method === "HEAD") return response;
  if (!compressibleStatus(form.status)) return response;
  if (headerOf(headers, "content-encoding") !== undefined) return response;
  if (!COMPRESSIBLE.test(headerOf(headers, "content-type") ?? "")) return response;
  if (!acceptsGzip(acceptEncoding(request, env))) return response;
  const zipped =
    typeof body === "string" ? gzip(Buffer.from(body)) : form.reusable ? gzipOnce(body) : gzip(body);
  const out: Record<string, string> = { "Content-Encoding": "gzip" };
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() !== "content-length") out[name] = value;
  return zipped.then((bytes) => new Response(bytes, { status: form.status, headers: out }));
}

/** A header of a plain header object, whatever the case of its name. */
function headerOf(headers: Readonly<Record<string, string>>, lowerName: string): string | undefined {
  for (const name in headers) if (name.toLowerCase() === lowerName) return headers[name];
  return undefined;
}

/** The request's Accept-Encoding; under @hono/node-server from Node's parsed headers, without a Headers copy. */
function acceptEncoding(request: Request, env: unknown): string | null {
  const incoming = nodeRequest(env);
  if (incoming === undefined) return request.headers.get("accept-encoding");
  const value = incoming.headers["accept-encoding"];
  return value ?? null;
}

function addVary(headers: Headers): void {
  const vary = headers.get("vary");
  const wanted = varyWithAcceptEncoding(vary);
  if (wanted !== vary) headers.set("Vary", wanted);
}

function compressible(request: Request, env: unknown, response: Response): boolean {
  if (request.method === "HEAD") return false;
  if (!compressibleStatus(response.status)) return false;
  if (response.headers.has("content-encoding")) return false;
  if (!COMPRESSIBLE.test(response.headers.get("content-type") ?? "")) return false;
  return acceptsGzip(acceptEncoding(request, env));
}

/** Answers with a body: not informational, 204 No Content or 304 Not Modified. */
function compressibleStatus(status: number): boolean {
  return status >= 200 && status !== 204 && status !== 304;
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
