/**
 * What the code around the API (the HTTP edge's gzip, a server's end of the client tunnel) may know of a
 * response without reading it. Under @hono/node-server a response is a lightweight object: reading its
 * headers converts them into a WHATWG Headers object, and reading its body builds a full fetch Response
 * and streams it (tens of microseconds, on every forwarded request and every woken blocking query). The
 * routes that build a response from bytes or a string they hold say so here instead.
 */
export interface KnownForm {
  readonly status: number;
  readonly body: Uint8Array | string | null;
  /**
   * The complete headers, as a plain object, `Vary: Accept-Encoding` included (the edge adds nothing to
   * such a response); absent when only the body is known.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body is a buffer that other responses carry again unchanged (a memoized answer). */
  readonly reusable: boolean;
}

/** The `Vary` member every API answer goes out with (gzip.ts). */
export const VARY_ACCEPT_ENCODING = { Vary: "Accept-Encoding" } as const;

/** A `Vary` value that names Accept-Encoding: `existing` (null: none) with it added unless already covered. */
export function varyWithAcceptEncoding(existing: string | null | undefined): string {
  if (existing === null || existing === undefined || existing.trim() === "") return "Accept-Encoding";
  return /(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(existing) ? existing : `${existing}, Accept-Encoding`;
}

/** Carried by the response itself: a WeakMap entry per response cost more than the property (profiled). */
const FORM = Symbol("cairn.knownForm");

type Described = Response & { [FORM]?: KnownForm };

/** Records that `response` sends `form`; returns the response. */
export function withKnownForm(response: Response, form: KnownForm): Response {
  (response as Described)[FORM] = form;
  return response;
}

/** What is known of `response` without reading it, if its builder said. */
export function knownForm(response: Response): KnownForm | undefined {
  return (response as Described)[FORM];
}

/** Marks `response` as carrying `body`, a buffer that other responses will carry again unchanged. */
export function withReusableBody(response: Response, body: Uint8Array): Response {
  return withKnownForm(response, { status: response.status, body, reusable: true });
}
