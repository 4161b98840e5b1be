import { describe, expect, it } from "vitest";
import { FilterError, type FilterExpression, MAX_FILTER_NESTING, parseFilter } from "../../src/index.js";

/** A compact rendering of the tree: (and …), (or …), (not …), [Selector Operator raw]. */
function show(expression: FilterExpression): string {
  switch (expression.kind) {
    case "match": {
      const value = expression.value === undefined ? "" : ` ${JSON.stringify(expression.value.raw)}`;
      return `[${expression.selector.join("|")} ${expression.operator}${value}]`;
    }
    case "not":
      return `(not ${show(expression.operand)})`;
    default:
      return `(${expression.kind} ${expression.operands.map(show).join(" ")})`;
  }
}

const parsed = (input: string): string => show(parseFilter(input));

function parseError(input: string): FilterError {
  try {
    parseFilter(input);
  } catch (error) {
    if (error instanceof FilterError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(input)} not to parse`);
}

describe("filter grammar: match operators", () => {
  it.each([
    ['Node == "a"', '[Node Equal "a"]'],
    ['Node != "a"', '[Node Not Equal "a"]'],
    ['Node=="a"', '[Node Equal "a"]'],
    ['"a" in Tags', '[Tags In "a"]'],
    ['"a" not in Tags', '[Tags Not In "a"]'],
    ['Tags contains "a"', '[Tags In "a"]'],
    ['Tags not contains "a"', '[Tags Not In "a"]'],
    ['Node matches "^a.*"', '[Node Matches "^a.*"]'],
    ['Node not matches "^a.*"', '[Node Not Matches "^a.*"]'],
    ["Meta is empty", "[Meta Is Empty]"],
    ["Meta is not empty", "[Meta Is Not Empty]"],
  ])("%s", (input, tree) => {
    expect(parsed(input)).toBe(tree);
  });
});

describe("filter grammar: values", () => {
  it.each([
    ["Node == foo", '[Node Equal "foo"]'],
    ["Node == foo.bar", '[Node Equal "foo.bar"]'],
    ["Node == foo/bar_1", '[Node Equal "foo/bar_1"]'],
    ["Port == 8080", '[Port Equal "8080"]'],
    ["Port == -1", '[Port Equal "-1"]'],
    ["Weight == 1.5", '[Weight Equal "1.5"]'],
    ["Port == 0", '[Port Equal "0"]'],
    ["v1 in Tags", '[Tags In "v1"]'],
    ["v1 not in Tags", '[Tags Not In "v1"]'],
    ["8080 in Ports", '[Ports In "8080"]'],
    ['Node == ""', '[Node Equal ""]'],
    ['Node == "a b"', '[Node Equal "a b"]'],
    ['Node == "say \\"hi\\""', '[Node Equal "say \\"hi\\""]'],
    ['Node == "tab\\there"', '[Node Equal "tab\\there"]'],
    ['Node == "\\x41\\101\\u00e9\\U0001F600\\\\"', '[Node Equal "AAé😀\\\\"]'],
    ['Node == `raw \\n "quoted"`', '[Node Equal "raw \\\\n \\"quoted\\""]'],
    ["Node == `multi\r\nline`", '[Node Equal "multi\\nline"]'],
    ["Node == `and`", '[Node Equal "and"]'],
    ['Node == "or"', '[Node Equal "or"]'],
  ])("%s", (input, tree) => {
    expect(parsed(input)).toBe(tree);
  });
});

describe("filter grammar: selectors", () => {
  it.each([
    ['Meta.env == "prod"', '[Meta|env Equal "prod"]'],
    ['Meta["env"] == "prod"', '[Meta|env Equal "prod"]'],
    ['Meta["my key"] == "prod"', '[Meta|my key Equal "prod"]'],
    ['Meta[ "my.key" ] == "prod"', '[Meta|my.key Equal "prod"]'],
    ["Meta[`raw key`] is empty", "[Meta|raw key Is Empty]"],
    ['Service.TaggedAddresses["lan"].Port == 80', '[Service|TaggedAddresses|lan|Port Equal "80"]'],
    ['ServiceProxy.Upstreams.DestinationName == "db"', '[ServiceProxy|Upstreams|DestinationName Equal "db"]'],
    ['List.0 == "x"', '[List|0 Equal "x"]'],
    ['"v1" in Service.Tags', '[Service|Tags In "v1"]'],
    ['Node_2/x == "a"', '[Node_2/x Equal "a"]'],
  ])("%s", (input, tree) => {
    expect(parsed(input)).toBe(tree);
  });
});

describe("filter grammar: logic, precedence and parentheses", () => {
  it.each([
    ["A == 1 and B == 2", '(and [A Equal "1"] [B Equal "2"])'],
    ["A == 1 or B == 2", '(or [A Equal "1"] [B Equal "2"])'],
    ["A == 1 or B == 2 and C == 3", '(or [A Equal "1"] (and [B Equal "2"] [C Equal "3"]))'],
    ["A == 1 and B == 2 or C == 3", '(or (and [A Equal "1"] [B Equal "2"]) [C Equal "3"])'],
    ["not A == 1 and B == 2", '(and (not [A Equal "1"]) [B Equal "2"])'],
    ["not A == 1 or not B == 2", '(or (not [A Equal "1"]) (not [B Equal "2"]))'],
    ["not (A == 1 and B == 2)", '(not (and [A Equal "1"] [B Equal "2"]))'],
    ["not not A == 1", '[A Equal "1"]'],
    ["not not not A == 1", '(not [A Equal "1"])'],
    ["(A == 1 or B == 2) and C == 3", '(and (or [A Equal "1"] [B Equal "2"]) [C Equal "3"])'],
    ["((A == 1))", '[A Equal "1"]'],
    ["  A == 1\n\tand\r\n  B == 2  ", '(and [A Equal "1"] [B Equal "2"])'],
    ["A == 1 and B == 2 and C == 3", '(and [A Equal "1"] [B Equal "2"] [C Equal "3"])'],
    ['A == "x"or B == "y"', '(or [A Equal "x"] [B Equal "y"])'],
    ["(A == 1)and(B == 2)", '(and [A Equal "1"] [B Equal "2"])'],
  ])("%s", (input, tree) => {
    expect(parsed(input)).toBe(tree);
  });

  it("reads keywords as selectors or values where the operator reading fails, as go-bexpr's PEG does", () => {
    expect(parsed('not == "x"')).toBe('[not Equal "x"]');
    expect(parsed("not in Tags")).toBe('[Tags In "not"]');
    expect(parsed("not is empty")).toBe("[not Is Empty]");
    expect(parsed("and == or")).toBe('[and Equal "or"]');
    expect(parsed('notes == "x"')).toBe('[notes Equal "x"]');
    expect(parsed('Node == not and not Node == "y"')).toBe('(and [Node Equal "not"] (not [Node Equal "y"]))');
  });

  it("keeps long and/or chains flat, so they cost no depth", () => {
    const chain = Array.from({ length: 5000 }, (_, i) => `N == "${i}"`).join(" or ");
    const tree = parseFilter(chain);
    expect(tree.kind).toBe("or");
    expect(tree.kind === "or" && tree.operands.length).toBe(5000);
  });
});

describe("filter grammar: errors are one-line FilterErrors with the position", () => {
  it.each([
    ["", 0, "expected a selector or a value but found the end of the expression"],
    ["Node", 4, "expected an operator"],
    ["Node ==", 7, 'expected a value after "=="'],
    ["Node == (", 8, 'expected a value after "=="'],
    ['Node = "a"', 5, 'unexpected character "="'],
    ['Node == "a', 8, "unterminated string literal"],
    ["Node == `a", 8, "unterminated string literal"],
    ['Node == "a\nb"', 10, "newline in string literal"],
    ['Node == "\\q"', 9, "invalid escape sequence"],
    ['Node == "\\x4"', 9, "invalid escape sequence"],
    ['Node == "\\400"', 9, "invalid escape sequence"],
    ['Node == "\\uD800"', 9, "invalid Unicode code point"],
    ['(Node == "a"', 12, "unmatched parentheses"],
    ['Node == "a")', 11, 'unexpected ")"'],
    ['Node == "a" Node == "b"', 12, 'unexpected "Node"'],
    ['Node == "a" and', 15, "expected a selector or a value"],
    ["Port == 80x", 8, "invalid number literal"],
    ["Port == 01", 8, "invalid number literal"],
    ["Port == 1.2.3", 8, "invalid number literal"],
    ['"a" in', 6, "expected a selector"],
    ['"a" == Node', 4, 'expected "in" or "not in"'],
    ["Meta. == 1", 5, 'expected a field name after "."'],
    ["Meta . env == 1", 5, "expected an operator"],
    ["Meta[env] == 1", 5, "invalid index"],
    ['Meta["env" == 1', 10, "unclosed index expression"],
    ["Meta is", 7, 'expected "empty"'],
    ["Meta is not", 11, 'expected "empty"'],
    ["Tags not foo", 5, 'expected "in" or "not in"'],
    ["Node == a ~", 10, 'unexpected character "~"'],
  ])("%j", (input, position, fragment) => {
    const error = parseError(input);
    expect(error.position).toBe(position);
    expect(error.message).toContain(fragment);
    expect(error.message).toContain(`at column ${position + 1}:`);
    expect(error.message).not.toContain("\n");
  });

  it("refuses nesting deeper than the limit instead of exhausting the stack", () => {
    expect(
      parseError(`${"(".repeat(MAX_FILTER_NESTING + 1)}A == 1${")".repeat(MAX_FILTER_NESTING + 1)}`).message,
    ).toContain("nested deeper");
    expect(parseError(`${"not ".repeat(MAX_FILTER_NESTING + 1)}A == 1`).message).toContain("nested deeper");
    expect(parseError("(".repeat(100_000)).message).toContain("nested deeper");
    expect(parsed(`${"(".repeat(MAX_FILTER_NESTING - 1)}A == 1${")".repeat(MAX_FILTER_NESTING - 1)}`)).toBe(
      '[A Equal "1"]',
    );
  });
});
