/**
 * The one error a filter expression can raise: a parse error, an unknown selector, an operator the selector does
 * not support, a value that does not convert, or a regular expression that does not compile. Its message is one
 * line, fit for a 400 body as it stands.
 */
export class FilterError extends Error {
  override readonly name = "FilterError";
  /** Zero-based offset into the expression where the problem was found, when it has one. */
  readonly position: number | undefined;

  constructor(message: string, position?: number) {
    super(message);
    this.position = position;
  }
}
