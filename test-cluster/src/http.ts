// The workloads' HTTP client: one request with a deadline, and an answer that separates replies (a status
// the server sent) from failures (timeout, refused or reset connection), whose effect is unknown.

export type HttpOutcome =
  | { readonly kind: "reply"; readonly status: number; readonly body: string }
  | { readonly kind: "failure"; readonly reason: string };

export async function httpCall(
  url: string,
  method: string,
  body: string | undefined,
  timeoutMs: number,
): Promise<HttpOutcome> {
  try {
    const res = await fetch(url, { method, body, signal: AbortSignal.timeout(timeoutMs) });
    return { kind: "reply", status: res.status, body: await res.text() };
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return { kind: "failure", reason: `${err instanceof Error ? err.message : String(err)}${cause}` };
  }
}
