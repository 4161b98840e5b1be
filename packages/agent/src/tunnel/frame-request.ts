import type { RequestFrame } from "./protocol.js";

/**
 * The Request a server's HTTP app is given for a client agent's request frame.
 *
 * The app reads a request's method, URL, headers and, for a blocking query, its signal. A full fetch Request
 * also parses its URL again and makes an AbortSignal of its own, and that cost as much as the app's whole
 * work on a key read: a leader answering a client agent's reads spent 7.3% of its time constructing Requests
 * and 9.1% in the app. So a plain request (a usual method, a URL the URL parser would leave as it is) is a
 * FrameRequest: those four come from the frame, and a full Request is made only if something asks for more
 * (a body stream, `clone()`, `text()`, ...). Anything else gets a full Request, with its checks, as before.
 */
export function frameRequest(
  frame: RequestFrame,
  body: Uint8Array | undefined,
  signal?: AbortSignal,
): Request {
  const url = `${ORIGIN}${frame.url}`;
  // Built now as a full Request would, so that a header a Request refuses is refused at the same point.
  const headers = new Headers(frame.headers);
  if (!PLAIN_METHODS.has(frame.method) || !isPlainTarget(frame.url)) {
    return new Request(url, {
      method: frame.method,
      headers,
      ...(signal ? { signal } : {}),
      ...(body !== undefined ? { body } : {}),
    });
  }
  return new FrameRequest(frame.method, url, headers, body, signal) as unknown as Request;
}

/** The origin tunnel requests are given: the app reads only their path and query. */
const ORIGIN = "http://tunnel";

/** Methods a Request keeps as they are (others are normalized or refused by it). */
const PLAIN_METHODS = new Set(["GET", "HEAD", "PUT", "POST", "DELETE", "OPTIONS", "PATCH"]);

/**
 * A path and query that the URL parser serializes unchanged: printable ASCII it does not percent-encode in a
 * path or a query, and no dot segment (`.`, `..` or their `%2e` spellings, which it resolves).
 */
function isPlainTarget(target: string): boolean {
  return PLAIN_TARGET.test(target) && !DOT_SEGMENT.test(target) && !/%2e/i.test(target);
}

const PLAIN_TARGET = /^\/[!#$%&(-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;

class FrameRequest {
  #full: Request | undefined;
  #signal: AbortSignal | undefined;
  readonly #sent: Uint8Array | undefined;

  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Headers,
    sent: Uint8Array | undefined,
    signal: AbortSignal | undefined,
  ) {
    this.#sent = sent;
    this.#signal = signal;
  }

  /** Its own signal, or (asked for outside a blocking query) one that never aborts, made when first read. */
  get signal(): AbortSignal {
    this.#signal ??= new AbortController().signal;
    return this.#signal;
  }

  get bodyUsed(): boolean {
    return this.#full?.bodyUsed ?? false;
  }

  /** The full Request, made once, for everything this one does not answer itself. */
  full(): Request {
    this.#full ??= new Request(this.url, {
      method: this.method,
      headers: this.headers,
      signal: this.signal,
      ...(this.#sent !== undefined ? { body: this.#sent } : {}),
    });
    return this.#full;
  }
}

// A FrameRequest is a Request to the code that holds one (`instanceof`, prototype members): whatever a Request
// has and FrameRequest does not (body, clone, text, cache, ...) is answered by its full Request.
Object.setPrototypeOf(FrameRequest.prototype, Request.prototype);
for (let proto = Request.prototype; proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
  for (const key of Reflect.ownKeys(proto)) {
    if (key === "constructor" || key === Symbol.toStringTag || Object.hasOwn(FrameRequest.prototype, key))
      continue;
    if (key === "method" || key === "url" || key === "headers") continue; // own fields of each instance
    const member = Object.getOwnPropertyDescriptor(proto, key);
    if (member?.get !== undefined) {
      Object.defineProperty(FrameRequest.prototype, key, {
        get(this: FrameRequest) {
          return Reflect.get(this.full(), key);
        },
      });
    } else if (typeof member?.value === "function") {
      Object.defineProperty(FrameRequest.prototype, key, {
        value(this: FrameRequest, ...args: unknown[]) {
          const full = this.full();
          return (Reflect.get(full, key) as (...a: unknown[]) => unknown).apply(full, args);
        },
      });
    }
  }
}
