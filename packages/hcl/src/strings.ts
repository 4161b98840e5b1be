import { quote, type Source } from "./source.js";

/**
 * Reads a quoted string starting at the opening quote. Escapes are decoded as HCL1 (Go's rules); `${...}`
 * interpolations are kept verbatim, and inside them quotes and newlines do not end the string.
 * Returns the decoded value and the offset just past the closing quote.
 */
export function readQuotedString(source: Source, start: number): { value: string; end: number } {
  const text = source.text;
  let value = "";
  let chunkStart = start + 1;
  let i = chunkStart;
  for (;;) {
    if (i >= text.length) source.fail(start, "string is not terminated");
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      return { value: value + text.slice(chunkStart, i), end: i + 1 };
    }
    if (ch === 0x0a /* \n */) source.fail(start, "string is not terminated before the end of the line");
    if (ch === 0x24 /* $ */ && text.charCodeAt(i + 1) === 0x7b /* { */) {
      i = skipInterpolation(source, i);
    } else if (ch === 0x5c /* \ */) {
      const decoded = readEscape(source, i);
      value += text.slice(chunkStart, i) + decoded.value;
      i = decoded.end;
      chunkStart = i;
    } else {
      i++;
    }
  }
}

function skipInterpolation(source: Source, start: number): number {
  const text = source.text;
  let depth = 1;
  let i = start + 2;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return i + 1;
    i++;
  }
  return source.fail(start, `interpolation "\${" is not closed with '}'`);
}

const HEX_DIGITS = /^[0-9a-fA-F]+$/;
const ANCHOR_CHAR = /[\p{L}\p{Nd}_]/u;

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

function readEscape(source: Source, start: number): { value: string; end: number } {
  const text = source.text;
  const letter = text[start + 1];
  if (letter === undefined) source.fail(start, "string is not terminated");
  const simple = SIMPLE_ESCAPES[letter];
  if (simple !== undefined) return { value: simple, end: start + 2 };
  if (letter >= "0" && letter <= "7") {
    const digits = text.slice(start + 1, start + 4);
    const code = /^[0-7]{3}$/.test(digits) ? Number.parseInt(digits, 8) : 256;
    if (code > 255)
      source.fail(
        start,
        `invalid octal escape ${quote(`\\${digits}`)}: expected three octal digits up to \\377`,
      );
    return { value: String.fromCharCode(code), end: start + 4 };
  }
  const hexLength = letter === "x" ? 2 : letter === "u" ? 4 : letter === "U" ? 8 : 0;
  if (hexLength === 0) source.fail(start, `invalid escape sequence ${quote(`\\${letter}`)}`);
  const digits = text.slice(start + 2, start + 2 + hexLength);
  if (digits.length !== hexLength || !HEX_DIGITS.test(digits))
    source.fail(start, `invalid escape ${quote(`\\${letter}${digits}`)}: expected ${hexLength} hex digits`);
  const code = Number.parseInt(digits, 16);
  if (letter === "x") return { value: String.fromCharCode(code), end: start + 2 + hexLength };
  if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
    source.fail(start, `invalid escape ${quote(`\\${letter}${digits}`)}: not a Unicode code point`);
  }
  return { value: String.fromCodePoint(code), end: start + 2 + hexLength };
}

/**
 * Reads a heredoc starting at `<<`. `<<EOF` keeps the lines as written; `<<-EOF` removes the closing
 * anchor's indentation from every line when all non-blank lines carry it (as HCL1 does, except that blank
 * lines no longer stop the unindenting). The value ends with a newline unless it is empty.
 */
export function readHeredoc(source: Source, start: number): { value: string; end: number } {
  const text = source.text;
  let i = start + 2;
  const indented = text[i] === "-";
  if (indented) i++;
  const anchorStart = i;
  while (i < text.length && ANCHOR_CHAR.test(text[i]!)) i++;
  const anchor = text.slice(anchorStart, i);
  if (anchor === "") source.fail(start, "expected an anchor name after '<<', as in <<EOF");
  if (text[i] === "\r") i++;
  if (i < text.length && text[i] !== "\n") {
    source.fail(i, `heredoc anchor <<${indented ? "-" : ""}${anchor} must be followed by a newline`);
  }
  if (i >= text.length)
    source.fail(start, `heredoc <<${anchor} is not terminated by a line containing ${anchor}`);
  const lines: string[] = [];
  let lineStart = i + 1;
  for (;;) {
    if (lineStart > text.length)
      source.fail(start, `heredoc <<${anchor} is not terminated by a line containing ${anchor}`);
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const content = line.replace(/\r+$/, "");
    const indent = /^[ \t]*/.exec(content)![0];
    if (content.slice(indent.length) === anchor) {
      const value = indented ? unindent(lines, indent) : lines;
      return {
        value: value.map((l) => `${l}\n`).join(""),
        end: lineEnd === text.length ? lineEnd : lineEnd + 1,
      };
    }
    lines.push(line);
    lineStart = lineEnd + 1;
  }
}

function unindent(lines: readonly string[], indent: string): readonly string[] {
  const isBlank = (line: string) => /^[ \t\r]*$/.test(line);
  if (!lines.every((line) => line.startsWith(indent) || isBlank(line))) return lines;
  return lines.map((line) =>
    line.startsWith(indent) ? line.slice(indent.length) : line.replace(/^[ \t]*/, ""),
  );
}
