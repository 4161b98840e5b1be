/** A non-2xx answer from the HTTP API: its status and the reason text it gave, never swallowed. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly path: string,
  ) {
    super(`${status} ${reason}`);
    this.name = "ApiError";
  }
}

/** The privilege a 403's reason names, as Consul 1.15+ writes it: `lacks permission 'service:read' on "web"`. */
export function missingPrivilege(reason: string): { privilege: string; resource?: string } | undefined {
  const m = /lacks permission '([^']+)'(?: on "((?:[^"\\]|\\.)*)")?/.exec(reason);
  if (!m) return undefined;
  return m[2] === undefined ? { privilege: m[1]! } : { privilege: m[1]!, resource: m[2] };
}

/** One line for any thrown value: an API error's status and reason, a network failure's message. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return `${err.status}: ${err.reason || "(no reason given)"}`;
  if (err instanceof Error) return err.message;
  return String(err);
}
