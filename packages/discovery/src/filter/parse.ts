import type { FilterExpression, MatchExpression, MatchOperator, MatchValue } from "./ast.js";
import { FilterError } from "./errors.js";
import { scan, syntaxError, type Token } from "./scan.js";

/** Deeper nesting of parentheses and `not` is refused rather than risking the stack. */
export const MAX_FILTER_NESTING = 100;

/**
 * Parses a filter expression with go-bexpr's grammar:
 *
 *   or    := and ("or" and)*
 *   and   := not ("and" not)*
 *   not   := "not" not | "(" or ")" | match
 *   match := selector ("==" | "!=" | "contains" | "not contains" | "matches" | "not matches") value
 *          | selector "is" ["not"] "empty"
 *          | value ("in" | "not in") selector
 *
 * Keywords are not reserved: like go-bexpr's PEG parser, `not` is first read as the operator and, when that
 * fails, as a selector or value. Slightly more lenient than go-bexpr about whitespace next to `(`, `)` and
 * quoted strings.
 */
export function parseFilter(input: string): FilterExpression {
  return new Parser(scan(input)).parseInput();
}

class Parser {
  private index = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parseInput(): FilterExpression {
    const expression = this.parseOr(0);
    const rest = this.peek();
    if (rest.type !== "eof") {
      throw syntaxError(
        `unexpected ${describe(rest)}, expected "and", "or" or the end of the expression`,
        rest.start,
      );
    }
    return expression;
  }

  private parseOr(depth: number): FilterExpression {
    const operands = [this.parseAnd(depth)];
    while (this.isWord(this.peek(), "or")) {
      this.index++;
      operands.push(this.parseAnd(depth));
    }
    return operands.length === 1 ? operands[0]! : { kind: "or", operands };
  }

  private parseAnd(depth: number): FilterExpression {
    const operands = [this.parseNot(depth)];
    while (this.isWord(this.peek(), "and")) {
      this.index++;
      operands.push(this.parseNot(depth));
    }
    return operands.length === 1 ? operands[0]! : { kind: "and", operands };
  }

  private parseNot(depth: number): FilterExpression {
    if (depth >= MAX_FILTER_NESTING) {
      throw syntaxError(`expression nested deeper than ${MAX_FILTER_NESTING} levels`, this.peek().start);
    }
    if (!this.isWord(this.peek(), "not")) return this.parsePrimary(depth);
    const start = this.index;
    let asOperator: FilterError;
    try {
      this.index++;
      const operand = this.parseNot(depth + 1);
      return operand.kind === "not" ? operand.operand : { kind: "not", operand };
    } catch (error) {
      if (!(error instanceof FilterError)) throw error;
      asOperator = error;
    }
    // `not` may also be a selector or value (`not in Tags`); keep whichever reading got further.
    this.index = start;
    try {
      return this.parsePrimary(depth);
    } catch (error) {
      if (!(error instanceof FilterError)) throw error;
      throw (error.position ?? 0) > (asOperator.position ?? 0) ? error : asOperator;
    }
  }

  private parsePrimary(depth: number): FilterExpression {
    const open = this.peek();
    if (!isPunct(open, "(")) return this.parseMatch();
    this.index++;
    const inner = this.parseOr(depth + 1);
    const close = this.peek();
    if (!isPunct(close, ")")) {
      throw syntaxError(`unmatched parentheses: expected ")" but found ${describe(close)}`, close.start);
    }
    this.index++;
    return inner;
  }

  private parseMatch(): MatchExpression {
    const first = this.peek();
    if (first.type === "string" || first.type === "number") {
      this.index++;
      const value = { raw: first.text, position: first.start };
      return this.finishValueInSelector(value, first.start);
    }
    if (first.type !== "ident") {
      throw syntaxError(`expected a selector or a value but found ${describe(first)}`, first.start);
    }
    const selector = this.parseSelector();
    const opToken = this.peek();
    const match = (operator: MatchOperator, value: MatchValue | undefined): MatchExpression => ({
      kind: "match",
      selector,
      operator,
      value,
      position: first.start,
    });
    if (isPunct(opToken, "==") || isPunct(opToken, "!=")) {
      this.index++;
      return match(opToken.text === "==" ? "Equal" : "Not Equal", this.parseValue(opToken.text));
    }
    if (this.isWord(opToken, "contains") || this.isWord(opToken, "matches")) {
      this.index++;
      return match(opToken.text === "contains" ? "In" : "Matches", this.parseValue(opToken.text));
    }
    if (this.isWord(opToken, "is")) {
      this.index++;
      const negated = this.isWord(this.peek(), "not");
      if (negated) this.index++;
      const empty = this.peek();
      if (!this.isWord(empty, "empty")) {
        throw syntaxError(`expected "empty" but found ${describe(empty)}`, empty.start);
      }
      this.index++;
      return match(negated ? "Is Not Empty" : "Is Empty", undefined);
    }
    if (this.isWord(opToken, "in") || this.isWord(opToken, "not")) {
      const next = this.tokens[this.index + 1] ?? opToken;
      if (this.isWord(opToken, "not") && (this.isWord(next, "contains") || this.isWord(next, "matches"))) {
        this.index += 2;
        return match(
          next.text === "contains" ? "Not In" : "Not Matches",
          this.parseValue(`not ${next.text}`),
        );
      }
      // The words read so far were a bare value: `v1 in Tags`.
      return this.finishValueInSelector({ raw: selector.join("."), position: first.start }, first.start);
    }
    throw syntaxError(
      `expected an operator (==, !=, in, not in, contains, not contains, matches, not matches, is empty, is not empty) after selector but found ${describe(opToken)}`,
      opToken.start,
    );
  }

  /** `value in selector` / `value not in selector`, with the value already read. */
  private finishValueInSelector(value: MatchValue, position: number): MatchExpression {
    const token = this.peek();
    let operator: MatchOperator;
    if (this.isWord(token, "in")) {
      this.index++;
      operator = "In";
    } else if (this.isWord(token, "not") && this.isWord(this.tokens[this.index + 1] ?? token, "in")) {
      this.index += 2;
      operator = "Not In";
    } else {
      throw syntaxError(`expected "in" or "not in" after a value but found ${describe(token)}`, token.start);
    }
    const target = this.peek();
    if (target.type !== "ident")
      throw syntaxError(`expected a selector but found ${describe(target)}`, target.start);
    return { kind: "match", selector: this.parseSelector(), operator, value, position };
  }

  private parseValue(after: string): MatchValue {
    const token = this.peek();
    if (token.type === "string" || token.type === "number") {
      this.index++;
      return { raw: token.text, position: token.start };
    }
    if (token.type === "ident") return { raw: this.parseSelector().join("."), position: token.start };
    throw syntaxError(`expected a value after "${after}" but found ${describe(token)}`, token.start);
  }

  /** An identifier, then `.name`, `.0` or `["key"]` segments written without spaces between them. */
  private parseSelector(): string[] {
    const first = this.next();
    const path = [first.text];
    let end = first.end;
    while (true) {
      const token = this.peek();
      if (token.start !== end) return path;
      if (isPunct(token, ".")) {
        const segment = this.tokens[this.index + 1];
        if (
          !segment ||
          segment.start !== token.end ||
          (segment.type !== "ident" && segment.type !== "number")
        ) {
          throw syntaxError('expected a field name after "."', token.end);
        }
        this.index += 2;
        path.push(segment.text);
        end = segment.end;
      } else if (isPunct(token, "[")) {
        const key = this.tokens[this.index + 1];
        if (key?.type !== "string") throw syntaxError("invalid index: expected a quoted key", token.end);
        const close = this.tokens[this.index + 2];
        if (!close || !isPunct(close, "]")) throw syntaxError("unclosed index expression", key.end);
        this.index += 3;
        path.push(key.text);
        end = close.end;
      } else {
        return path;
      }
    }
  }

  private peek(): Token {
    return this.tokens[this.index] ?? this.tokens[this.tokens.length - 1]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== "eof") this.index++;
    return token;
  }

  private isWord(token: Token, word: string): boolean {
    return token.type === "ident" && token.text === word;
  }
}

function isPunct(token: Token, text: string): boolean {
  return token.type === "punct" && token.text === text;
}

function describe(token: Token): string {
  switch (token.type) {
    case "eof":
      return "the end of the expression";
    case "string":
      return `string ${JSON.stringify(token.text)}`;
    default:
      return JSON.stringify(token.text);
  }
}
