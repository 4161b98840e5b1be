/** A place in the source text. Lines and columns count from 1; columns count UTF-16 code units. */
export interface HclPosition {
  readonly line: number;
  readonly column: number;
  /** Offset from the start of the text, in UTF-16 code units. */
  readonly offset: number;
}

/**
 * The only error the parser throws: bad syntax, or a key defined twice in incompatible ways.
 * `message` reads `line 3, column 7: expected '=' or '{' after key "foo"`.
 */
export class HclParseError extends Error {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
  /** The one-line reason, without the position prefix. */
  readonly reason: string;

  constructor(position: HclPosition, reason: string) {
    super(`line ${position.line}, column ${position.column}: ${reason}`);
    this.name = "HclParseError";
    this.line = position.line;
    this.column = position.column;
    this.offset = position.offset;
    this.reason = reason;
  }
}
