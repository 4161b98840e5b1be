import { FilterError } from "./errors.js";

/**
 * Tokens of a filter expression. Keywords (`and`, `or`, `not`, `in`, `is`, `empty`, `contains`, `matches`) are
 * plain identifiers here: go-bexpr does not reserve them, so the parser decides from context what a word is.
 */
export type Token =
  | { readonly type: "ident"; readonly text: string; readonly start: number; readonly end: number }
  /** A number value, or the digits of a numeric selector segment (`Foo.0`). */
  | { readonly type: "number"; readonly text: string; readonly start: number; readonly end: number }
  /** `text` is the unquoted string. */
  | { readonly type: "string"; readonly text: string; readonly start: number; readonly end: number }
  | { readonly type: "punct"; readonly text: Punct; readonly start: number; readonly end: number }
  | { readonly type: "eof"; readonly text: ""; readonly start: number; readonly end: number };

export type Punct = "(" | ")" | "[" | "]" | "." | "==" | "!=";

export function syntaxError(message: string, position: number): FilterError {
  return new FilterError(`Invalid filter expression at column ${position + 1}: ${message}`, position);
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
// go-bexpr identifiers: a letter, then letters, digits, `_` and `/`.
const isIdentPart = (c: number): boolean => isLetter(c) || isDigit(c) || c === 0x5f || c === 0x2f;

/** Splits an expression into tokens, ending with one `eof` token. */
export function scan(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  while (true) {
    while (pos < input.length && isSpace(input.charCodeAt(pos))) pos++;
    if (pos >= input.length) break;
    const start = pos;
    const c = input.charCodeAt(pos);
    const previous = tokens[tokens.length - 1];
    if (isLetter(c)) {
      pos++;
      while (pos < input.length && isIdentPart(input.charCodeAt(pos))) pos++;
      tokens.push({ type: "ident", text: input.slice(start, pos), start, end: pos });
    } else if (isDigit(c) && previous?.type === "punct" && previous.text === "." && previous.end === start) {
      // A numeric selector segment such as the `0` of `Foo.0`: digits only, no number syntax.
      while (pos < input.length && isDigit(input.charCodeAt(pos))) pos++;
      tokens.push({ type: "number", text: input.slice(start, pos), start, end: pos });
    } else if (isDigit(c) || (c === 0x2d && isDigit(input.charCodeAt(pos + 1)))) {
      pos = scanNumber(input, pos);
      tokens.push({ type: "number", text: input.slice(start, pos), start, end: pos });
    } else if (c === 0x22) {
      const [text, end] = scanQuoted(input, pos);
      pos = end;
      tokens.push({ type: "string", text, start, end });
    } else if (c === 0x60) {
      const close = input.indexOf("`", pos + 1);
      if (close < 0) throw syntaxError("unterminated string literal", start);
      // Go drops carriage returns from raw strings.
      tokens.push({
        type: "string",
        text: input.slice(pos + 1, close).replaceAll("\r", ""),
        start,
        end: close + 1,
      });
      pos = close + 1;
    } else if ((c === 0x3d || c === 0x21) && input.charCodeAt(pos + 1) === 0x3d) {
      pos += 2;
      tokens.push({ type: "punct", text: c === 0x3d ? "==" : "!=", start, end: pos });
    } else if (c === 0x28 || c === 0x29 || c === 0x5b || c === 0x5d || c === 0x2e) {
      pos++;
      tokens.push({ type: "punct", text: input[start] as Punct, start, end: pos });
    } else {
      const ch = String.fromCodePoint(input.codePointAt(pos) ?? c);
      throw syntaxError(`unexpected character ${JSON.stringify(ch)}`, start);
    }
  }
  tokens.push({ type: "eof", text: "", start: input.length, end: input.length });
  return tokens;
}

/** `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, which must be followed by whitespace, `)` or the end. */
function scanNumber(input: string, pos: number): number {
  const start = pos;
  if (input[pos] === "-") pos++;
  if (input[pos] === "0") pos++;
  else while (pos < input.length && isDigit(input.charCodeAt(pos))) pos++;
  if (input[pos] === "." && isDigit(input.charCodeAt(pos + 1))) {
    pos++;
    while (pos < input.length && isDigit(input.charCodeAt(pos))) pos++;
  }
  const next = input.charCodeAt(pos);
  if (pos < input.length && !isSpace(next) && next !== 0x29)
    throw syntaxError("invalid number literal", start);
  return pos;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  '"': '"',
};

/** A double-quoted string with Go's escapes (`\n`, `\"`, `\x41`, `\101`, `\u00e9`, `\U0001F600`). */
function scanQuoted(input: string, open: number): [string, number] {
  let out = "";
  let pos = open + 1;
  while (pos < input.length) {
    const ch = input[pos];
    if (ch === '"') return [out, pos + 1];
    if (ch === "\n") throw syntaxError("newline in string literal", pos);
    if (ch !== "\\") {
      out += ch;
      pos++;
      continue;
    }
    const kind = input[pos + 1];
    if (kind === undefined) break;
    const simple = SIMPLE_ESCAPES[kind];
    if (simple !== undefined) {
      out += simple;
      pos += 2;
    } else if (kind === "x" || kind === "u" || kind === "U") {
      const width = kind === "x" ? 2 : kind === "u" ? 4 : 8;
      const hex = input.slice(pos + 2, pos + 2 + width);
      if (hex.length !== width || !/^[0-9a-fA-F]+$/.test(hex))
        throw syntaxError("invalid escape sequence", pos);
      const code = Number.parseInt(hex, 16);
      if (kind !== "x" && (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))) {
        throw syntaxError("escape sequence is an invalid Unicode code point", pos);
      }
      // Go's \x is a byte; as a character it stands for the same code point in Latin-1.
      out += String.fromCodePoint(code);
      pos += 2 + width;
    } else if (kind >= "0" && kind <= "7") {
      const octal = input.slice(pos + 1, pos + 4);
      if (!/^[0-7]{3}$/.test(octal) || Number.parseInt(octal, 8) > 255) {
        throw syntaxError("invalid escape sequence", pos);
      }
      out += String.fromCharCode(Number.parseInt(octal, 8));
      pos += 4;
    } else {
      throw syntaxError("invalid escape sequence", pos);
    }
  }
  throw syntaxError("unterminated string literal", open);
}
