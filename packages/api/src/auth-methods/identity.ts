import type { SelectableFields } from "./selector.js";

/**
 * What an auth method vouches for after validating a bearer token: the fields selectors match and the
 * variables `${...}` templates use (every declared field present, empty when the token lacks it).
 */
export interface VerifiedIdentity {
  readonly fields: SelectableFields;
  readonly vars: Readonly<Record<string, string>>;
}

/** A login the method refused (a bad or unauthenticated bearer token): 403 with the reason. */
export class LoginRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LoginRefusedError";
  }
}
