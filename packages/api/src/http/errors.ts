import type { ErrorKind } from "@cairn/fsm";

/**
 * Errors a route raises to produce a Consul-style response: a status and a one-line plain-text body.
 * Anything else that escapes a handler is a real fault and becomes a logged 500.
 */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 500,
    message: string,
    /** For 405: the methods the resource accepts (sent in the Allow header). */
    readonly allow?: readonly string[],
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export function badRequest(reason: string): HttpError {
  return new HttpError(400, reason);
}

export function permissionDenied(): HttpError {
  return new HttpError(403, "Permission denied");
}

export function notFound(reason: string): HttpError {
  return new HttpError(404, reason);
}

export function tooLarge(reason: string): HttpError {
  return new HttpError(413, reason);
}

export function methodNotAllowed(method: string, allow: readonly string[]): HttpError {
  return new HttpError(405, `method ${method} not allowed`, ["OPTIONS", ...allow]);
}

/**
 * The status of each domain error kind (@cairn/fsm's store/errors.ts): the one place a state-machine or local
 * agent refusal becomes HTTP. `invalid-session` keeps Consul's 500, which clients (Patroni) recognise.
 */
const STATUS_OF_KIND: Readonly<Record<ErrorKind, HttpError["status"]>> = {
  invalid: 400,
  "not-found": 404,
  "too-large": 413,
  conflict: 409,
  "invalid-session": 500,
  failed: 500,
};

export function statusOf(kind: ErrorKind): HttpError["status"] {
  return STATUS_OF_KIND[kind];
}
