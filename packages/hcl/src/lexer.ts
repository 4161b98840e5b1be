import { quote, type Source } from "./source.js";
import { readHeredoc, readQuotedString } from "./strings.js";

export type Punctuation = "{" | "}" | "[" | "]" | "=" | ",";

export type Token =
  | { readonly kind: "ident"; readonly text: string; readonly offset: number }
  | { readonly kind: "string"; readonly value: string; readonly offset: number }
  | { readonly kind: "number"; readonly value: number; readonly text: string; readonly offset: number }
  | { readonly kind: "bool"; readonly value: boolean; readonly offset: number }
  | { readonly kind: Punctuation | "eof"; readonly offset: number };

const IDENT_START = /[\p{L}_]/u;
const IDENT_PART = /[\p{L}\p{Nd}_.-]/u;

/** IDENT_PART with an ASCII fast path: identifiers are read a character at a time. */
function isIdentPart(ch: string): boolean {
  const code = ch.charCodeAt(0);
  if (code < 0x80) {
    return (
      (code >= 0x61 && code <= 0x7a) ||
      (code >= 0x41 && code <= 0x5a) ||
      (code >= 0x30 && code <= 0x39) ||
      ch === "_" ||
      ch === "-" ||
      ch === "."
    );
  }
  return IDENT_PART.test(ch);
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= "0" && ch <= "9";
}

/** Splits HCL1 source into tokens on demand. Whitespace (newlines included) and comments separate tokens. */
export class Lexer {
  private offset = 0;

  constructor(private readonly source: Source) {
    // A byte-order mark at the start is an editor artefact, not content.
    if (source.text.charCodeAt(0) === 0xfeff) this.offset = 1;
  }

  next(): Token {
    this.skipBlanks();
    const text = this.source.text;
    const start = this.offset;
    const ch = text[start];
    if (ch === undefined) return { kind: "eof", offset: start };
    switch (ch) {
      case "{":
      case "}":
      case "[":
      case "]":
      case "=":
      case ",":
        this.offset++;
        return { kind: ch, offset: start };
      case '"': {
        const { value, end } = readQuotedString(this.source, start);
        this.offset = end;
        return { kind: "string", value, offset: start };
      }
      case "<": {
        if (text[start + 1] !== "<")
          this.source.fail(start, "unexpected character '<' (a heredoc starts with '<<')");
        const { value, end } = readHeredoc(this.source, start);
        this.offset = end;
        return { kind: "string", value, offset: start };
      }
    }
    if (isDigit(ch) || ((ch === "-" || ch === ".") && isDigit(text[start + 1]))) return this.number();
    if (IDENT_START.test(ch)) {
      let end = start + 1;
      while (end < text.length && isIdentPart(text[end]!)) end++;
      this.offset = end;
      const word = text.slice(start, end);
      if (word === "true" || word === "false") return { kind: "bool", value: word === "true", offset: start };
      return { kind: "ident", text: word, offset: start };
    }
    const char = String.fromCodePoint(text.codePointAt(start)!);
    return this.source.fail(start, `unexpected character ${quote(char)}`);
  }

  private skipBlanks(): void {
    const text = this.source.text;
    for (;;) {
      const ch = text[this.offset];
      if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
        this.offset++;
      } else if (ch === "#" || (ch === "/" && text[this.offset + 1] === "/")) {
        const newline = text.indexOf("\n", this.offset);
        this.offset = newline === -1 ? text.length : newline + 1;
      } else if (ch === "/" && text[this.offset + 1] === "*") {
        const close = text.indexOf("*/", this.offset + 2);
        if (close === -1) this.source.fail(this.offset, "comment '/*' is not closed with '*/'");
        this.offset = close + 2;
      } else if (ch === "/") {
        this.source.fail(this.offset, "unexpected character '/' (comments start with '//', '/*' or '#')");
      } else {
        return;
      }
    }
  }

  /** Numbers as HCL1 reads them: decimal, `0x` hex, leading-zero octal, floats with fraction or exponent. */
  private number(): Token {
    const text = this.source.text;
    const start = this.offset;
    let i = start;
    const negative = text[i] === "-";
    if (negative) i++;
    let value: number;
    if (text[i] === "0" && (text[i + 1] === "x" || text[i + 1] === "X")) {
      const digitsStart = i + 2;
      i = digitsStart;
      while (/[0-9a-fA-F]/.test(text[i] ?? "")) i++;
      if (i === digitsStart)
        this.source.fail(start, `invalid hexadecimal number ${quote(text.slice(start, i))}`);
      value = Number.parseInt(text.slice(digitsStart, i), 16);
    } else {
      const intStart = i;
      while (isDigit(text[i])) i++;
      const intDigits = text.slice(intStart, i);
      let isFloat = false;
      if (text[i] === ".") {
        isFloat = true;
        i++;
        while (isDigit(text[i])) i++;
      }
      if (text[i] === "e" || text[i] === "E") {
        isFloat = true;
        i++;
        if (text[i] === "+" || text[i] === "-") i++;
        const expStart = i;
        while (isDigit(text[i])) i++;
        if (i === expStart)
          this.source.fail(start, `invalid number ${quote(text.slice(start, i))}: missing exponent digits`);
      }
      if (!isFloat && intDigits.length > 1 && intDigits[0] === "0") {
        if (!/^[0-7]+$/.test(intDigits))
          this.source.fail(start, `invalid octal number ${quote(text.slice(start, i))}`);
        value = Number.parseInt(intDigits, 8);
      } else {
        value = Number(text.slice(negative ? start + 1 : start, i));
      }
    }
    if (i < text.length && isIdentPart(text[i]!)) {
      let end = i;
      while (end < text.length && isIdentPart(text[end]!)) end++;
      this.source.fail(
        start,
        `unexpected ${quote(text.slice(start, end))}: strings (durations included) must be quoted`,
      );
    }
    if (!Number.isFinite(value))
      this.source.fail(start, `number ${quote(text.slice(start, i))} is out of range`);
    this.offset = i;
    return { kind: "number", value: negative ? -value : value, text: text.slice(start, i), offset: start };
  }
}
