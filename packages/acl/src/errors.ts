/**
 * Rules that do not parse or do not validate. `message` is one line: `line 3, column 12: <reason>` when
 * the position is known (HCL form), else just the reason (the JSON form carries no positions).
 */
export class AclRulesError extends Error {
  readonly line: number | undefined;
  readonly column: number | undefined;
  /** The one-line reason, without the position prefix. */
  readonly reason: string;

  constructor(reason: string, position?: { readonly line: number; readonly column: number }) {
    super(position ? `line ${position.line}, column ${position.column}: ${reason}` : reason);
    this.name = "AclRulesError";
    this.line = position?.line;
    this.column = position?.column;
    this.reason = reason;
  }
}

/**
 * The token secret is unknown or the token has expired; Consul answers both with 403 `ACL not found`.
 */
export class AclNotFoundError extends Error {
  constructor(readonly reason: "unknown" | "expired") {
    super("ACL not found");
    this.name = "AclNotFoundError";
  }
}

/** A service or node identity that breaks the naming rules (spec 1: 400 naming the field). */
export class AclIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AclIdentityError";
  }
}
