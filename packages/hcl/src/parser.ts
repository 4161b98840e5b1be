import type { HclItemNode, HclKeyNode, HclListNode, HclNode, HclObjectNode } from "./ast.js";
import { Lexer, type Token } from "./lexer.js";
import { quote, Source } from "./source.js";

/** Deeper nesting than this is refused, so hostile input cannot exhaust the stack. */
export const MAX_NESTING = 200;

/** Parses HCL1 text into a syntax tree. Throws HclParseError. */
export function parseHclSyntax(text: string): HclObjectNode {
  return new Parser(new Source(text)).parseFile();
}

class Parser {
  private readonly lexer: Lexer;
  private lookahead: Token | undefined;

  constructor(private readonly source: Source) {
    this.lexer = new Lexer(source);
  }

  parseFile(): HclObjectNode {
    return this.body(0, undefined, 0);
  }

  private peek(): Token {
    this.lookahead ??= this.lexer.next();
    return this.lookahead;
  }

  private take(): Token {
    const token = this.peek();
    this.lookahead = undefined;
    return token;
  }

  /** Items up to the end of input (the file) or up to the `}` matching the `{` at `openOffset`. */
  private body(start: number, openOffset: number | undefined, depth: number): HclObjectNode {
    if (depth > MAX_NESTING) this.source.fail(start, `nesting is deeper than ${MAX_NESTING} levels`);
    const items: HclItemNode[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind === "eof") {
        if (openOffset !== undefined)
          this.source.fail(token.offset, `expected '}' to close the '{' at ${this.where(openOffset)}`);
        break;
      }
      if (token.kind === "}") {
        if (openOffset === undefined) this.source.fail(token.offset, "unexpected '}' without a matching '{'");
        this.take();
        break;
      }
      if (token.kind === ",") {
        this.take();
        continue;
      }
      items.push(this.item(depth));
    }
    return { kind: "object", items, position: this.source.positionAt(start) };
  }

  private item(depth: number): HclItemNode {
    const keys: HclKeyNode[] = [];
    let token = this.take();
    while (token.kind === "ident" || token.kind === "string") {
      keys.push({
        name: token.kind === "ident" ? token.text : token.value,
        position: this.source.positionAt(token.offset),
      });
      token = this.take();
    }
    if (keys.length === 0) this.source.fail(token.offset, `expected a key, found ${describe(token)}`);
    if (token.kind === "{") return { keys, value: this.body(token.offset, token.offset, depth + 1) };
    if (token.kind !== "=") {
      this.source.fail(
        token.offset,
        `expected '=' or '{' after ${describeKeys(keys)}, found ${describe(token)}`,
      );
    }
    if (keys.length > 1)
      this.source.fail(token.offset, `expected '{' after ${describeKeys(keys)}: only blocks take labels`);
    return { keys, value: this.value(depth, keys) };
  }

  /** A value after `keys =`, or a list element when `keys` is undefined. */
  private value(depth: number, keys?: readonly HclKeyNode[]): HclNode {
    const context = () => (keys ? `after '=' for ${describeKeys(keys)}` : "in a list");
    const token = this.take();
    const position = this.source.positionAt(token.offset);
    switch (token.kind) {
      case "string":
      case "number":
      case "bool":
        return { kind: "literal", value: token.value, position };
      case "{":
        return this.body(token.offset, token.offset, depth + 1);
      case "[":
        return this.list(token.offset, depth + 1);
      case "ident":
        return this.source.fail(
          token.offset,
          `unexpected ${describe(token)} ${context()}: strings must be quoted`,
        );
      default:
        return this.source.fail(token.offset, `expected a value ${context()}, found ${describe(token)}`);
    }
  }

  private list(openOffset: number, depth: number): HclListNode {
    if (depth > MAX_NESTING) this.source.fail(openOffset, `nesting is deeper than ${MAX_NESTING} levels`);
    const items: HclNode[] = [];
    for (;;) {
      const token = this.peek();
      if (token.kind === "]") {
        this.take();
        return { kind: "list", items, position: this.source.positionAt(openOffset) };
      }
      if (token.kind === "eof")
        this.source.fail(token.offset, `expected ']' to close the '[' at ${this.where(openOffset)}`);
      items.push(this.value(depth));
      const after = this.peek();
      if (after.kind === ",") this.take();
      else if (after.kind !== "]")
        this.source.fail(after.offset, `expected ',' or ']' after a list element, found ${describe(after)}`);
    }
  }

  private where(offset: number): string {
    const { line, column } = this.source.positionAt(offset);
    return `line ${line}, column ${column}`;
  }
}

function describeKeys(keys: readonly HclKeyNode[]): string {
  return keys.length === 1
    ? `key ${quote(keys[0]!.name)}`
    : `block ${keys.map((k) => quote(k.name)).join(" ")}`;
}

function describe(token: Token): string {
  switch (token.kind) {
    case "ident":
      return `identifier ${quote(token.text)}`;
    case "string":
      return `string ${quote(token.value)}`;
    case "number":
      return `number ${token.text}`;
    case "bool":
      return String(token.value);
    case "eof":
      return "end of input";
    default:
      return `'${token.kind}'`;
  }
}
