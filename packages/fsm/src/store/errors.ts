/**
 * Domain errors: what went wrong, in the state machine's terms. The HTTP layer alone turns a kind into a
 * status (packages/api/src/http/errors.ts), so every answer's status and text stay where Consul puts them.
 *
 * - `invalid`: the request or the state it meets does not admit the change (Consul's 400s).
 * - `not-found`: it names something that does not exist (404).
 * - `too-large`: it exceeds a size or count limit (413).
 * - `conflict`: it raced another change and lost (a snapshot restore superseded by a newer one; 409).
 * - `invalid-session`: a lock names a session that does not exist; clients (Patroni) recognise Consul's
 *   500 with this text as a lost session, so it keeps Consul's status.
 * - `failed`: an operation that could not be carried out, which Consul reports as a 500.
 */
export type ErrorKind = "invalid" | "not-found" | "too-large" | "conflict" | "invalid-session" | "failed";

/** Thrown where a domain operation refuses (the local agent's endpoints); nothing was changed. */
export class DomainError extends Error {
  override readonly name = "DomainError";
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** A command the state machine refused as a whole. Nothing changed. `error` is Consul's one-line message. */
export interface ApplyError {
  readonly error: string;
  readonly kind: ErrorKind;
}

export function applyError(error: string, kind: ErrorKind = "invalid"): ApplyError {
  return { error, kind };
}

export function isApplyError(result: unknown): result is ApplyError {
  return typeof result === "object" && result !== null && "error" in result;
}
