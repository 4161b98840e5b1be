import { describe, expect, it } from "vitest";
import { HclParseError, MAX_NESTING, parseHcl } from "../src/index.js";

/** [error class, input, expected message (position included)] */
const cases: ReadonlyArray<readonly [string, string, string]> = [
  [
    "key without = or {",
    "a = 1\nb = 2\nfoo   bar",
    `line 3, column 10: expected '=' or '{' after block "foo" "bar", found end of input`,
  ],
  [
    "key followed by a value",
    "foo 1",
    `line 1, column 5: expected '=' or '{' after key "foo", found number 1`,
  ],
  ["missing value", "a = ", `line 1, column 5: expected a value after '=' for key "a", found end of input`],
  [
    "value is a closing brace",
    "a { b = }",
    `line 1, column 9: expected a value after '=' for key "b", found '}'`,
  ],
  [
    "unquoted string value",
    "a = b",
    `line 1, column 5: unexpected identifier "b" after '=' for key "a": strings must be quoted`,
  ],
  [
    "unquoted duration",
    'a = "1s"\nb = 30s',
    `line 2, column 5: unexpected "30s": strings (durations included) must be quoted`,
  ],
  [
    "labels on an assignment",
    'a "b" = 1',
    `line 1, column 7: expected '{' after block "a" "b": only blocks take labels`,
  ],
  ["no key", "= 1", "line 1, column 1: expected a key, found '='"],
  ["number as key", "1 = 2", "line 1, column 1: expected a key, found number 1"],
  ["stray closing brace", "a = 1 }", "line 1, column 7: unexpected '}' without a matching '{'"],
  ["unclosed block", "a {\n  b = 1\n", "line 3, column 1: expected '}' to close the '{' at line 1, column 3"],
  ["unclosed list", "a = [1,", "line 1, column 8: expected ']' to close the '[' at line 1, column 5"],
  [
    "list without commas",
    "a = [1 2]",
    "line 1, column 8: expected ',' or ']' after a list element, found number 2",
  ],
  [
    "identifier in a list",
    "a = [x]",
    `line 1, column 6: unexpected identifier "x" in a list: strings must be quoted`,
  ],
  ["unterminated string", 'a = "abc', "line 1, column 5: string is not terminated"],
  [
    "newline in string",
    'a = "ab\nc"',
    "line 1, column 5: string is not terminated before the end of the line",
  ],
  ["unknown escape", String.raw`a = "x\q"`, String.raw`line 1, column 7: invalid escape sequence "\\q"`],
  [
    "short unicode escape",
    String.raw`a = "\u12"`,
    String.raw`line 1, column 6: invalid escape "\\u12\"": expected 4 hex digits`,
  ],
  [
    "surrogate escape",
    String.raw`a = "\ud800"`,
    String.raw`line 1, column 6: invalid escape "\\ud800": not a Unicode code point`,
  ],
  ["bad octal escape", String.raw`a = "\8"`, String.raw`line 1, column 6: invalid escape sequence "\\8"`],
  [
    "octal escape over 255",
    String.raw`a = "\777"`,
    String.raw`line 1, column 6: invalid octal escape "\\777": expected three octal digits up to \377`,
  ],
  ["unclosed interpolation", 'a = "${x"', `line 1, column 6: interpolation "\${" is not closed with '}'`],
  ["unclosed block comment", "a = 1 /* x", "line 1, column 7: comment '/*' is not closed with '*/'"],
  [
    "single slash",
    "a = 1 / 2",
    "line 1, column 7: unexpected character '/' (comments start with '//', '/*' or '#')",
  ],
  ["illegal character", "a = @", `line 1, column 5: unexpected character "@"`],
  ["lone minus", "a = -", `line 1, column 5: unexpected character "-"`],
  ["single <", "a = <EOF", "line 1, column 5: unexpected character '<' (a heredoc starts with '<<')"],
  [
    "heredoc without anchor",
    "a = <<\nx\n",
    "line 1, column 5: expected an anchor name after '<<', as in <<EOF",
  ],
  [
    "heredoc anchor followed by text",
    "a = <<EOF x\nEOF\n",
    "line 1, column 10: heredoc anchor <<EOF must be followed by a newline",
  ],
  [
    "heredoc not terminated",
    "a = <<EOF\nx\nEOFX\n",
    "line 1, column 5: heredoc <<EOF is not terminated by a line containing EOF",
  ],
  [
    "heredoc anchor at end of input",
    "a = <<EOF",
    "line 1, column 5: heredoc <<EOF is not terminated by a line containing EOF",
  ],
  ["bad hex", "a = 0x", `line 1, column 5: invalid hexadecimal number "0x"`],
  ["bad octal", "a = 089", `line 1, column 5: invalid octal number "089"`],
  ["exponent without digits", "a = 1e", `line 1, column 5: invalid number "1e": missing exponent digits`],
  ["number out of range", "a = 1e999", `line 1, column 5: number "1e999" is out of range`],
  [
    "two dots",
    "a = 1.2.3",
    `line 1, column 5: unexpected "1.2.3": strings (durations included) must be quoted`,
  ],
  [
    "scalar then block",
    "a = 1\na { }",
    'line 2, column 1: "a" is a single value at line 1, column 1 and cannot also be a block or object',
  ],
  [
    "block then list",
    "a {}\na = [1]",
    `line 2, column 1: "a" is a block or object at line 1, column 1 and cannot also be a list`,
  ],
  [
    "labelled and unlabelled block",
    'service "web" {}\nservice { name = "x" }',
    `line 2, column 1: "service" is used both as a labelled block and without labels (first at line 1, column 1)`,
  ],
];

describe("parseHcl errors", () => {
  it.each(cases)("%s", (_name, text, message) => {
    let caught: unknown;
    try {
      parseHcl(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HclParseError);
    expect((caught as HclParseError).message).toBe(message);
  });

  it("carries line, column, offset and the bare reason", () => {
    try {
      parseHcl("a = 1\n  b c");
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({
        line: 2,
        column: 6,
        offset: 11,
        reason: `expected '=' or '{' after block "b" "c", found end of input`,
      });
    }
  });

  it("refuses nesting deeper than the limit instead of overflowing the stack", () => {
    const deep = `a = ${"[".repeat(MAX_NESTING + 5)}`;
    expect(() => parseHcl(deep)).toThrow(/nesting is deeper than/);
    const deepBlocks = `${"a { ".repeat(100_000)}`;
    expect(() => parseHcl(deepBlocks)).toThrow(HclParseError);
    expect(parseHcl(`a = ${"[".repeat(50)}${"]".repeat(50)}`)).toBeDefined();
  });
});
