// Tiny HTTP helpers for harnesses and tests (fetch with a deadline). Load generators use the bench's
// keep-alive client instead.

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export interface HttpOptions {
  readonly timeoutMs?: number;
  readonly headers?: Record<string, string>;
}

/** One request; a failure to get an answer (refused, reset, timed out) is thrown. */
export async function http(
  url: string,
  method = "GET",
  body?: string | Uint8Array,
  options: HttpOptions = {},
): Promise<HttpAnswer> {
  const res = await fetch(url, {
    method,
    body,
    headers: options.headers,
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A reply (a status the server sent) or a failure (timeout, refused or reset connection: effect unknown). */
export type HttpOutcome =
  | { readonly kind: "reply"; readonly status: number; readonly body: string }
  | { readonly kind: "failure"; readonly reason: string };

/** Like `http`, but never throws: for workloads that record failures as indeterminate operations. */
export async function httpCall(
  url: string,
  method: string,
  body: string | undefined,
  timeoutMs: number,
): Promise<HttpOutcome> {
  try {
    const res = await http(url, method, body, { timeoutMs });
    return { kind: "reply", status: res.status, body: res.text };
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return { kind: "failure", reason: `${err instanceof Error ? err.message : String(err)}${cause}` };
  }
}
