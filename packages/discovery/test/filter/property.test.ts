import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileFilter, FilterError, field, type MatchOperator } from "../../src/index.js";

/**
 * Random expressions built from the grammar, printed with random but equivalent spellings (quoting styles,
 * `in` or `contains`, dotted or indexed map keys, extra parentheses and whitespace), must evaluate as a small
 * reference evaluator written directly over the generated tree says.
 */

const { string, bool, int, map, list, struct } = field;
const schema = struct({
  Name: string,
  Port: int,
  Enabled: bool,
  Tags: list(string),
  Meta: map(string),
  Items: list(struct({ Label: string, Size: int })),
});

type SelectorClass =
  | "Name"
  | "Port"
  | "Enabled"
  | "Tags"
  | "Meta"
  | "MetaKey"
  | "Items"
  | "ItemLabel"
  | "ItemSize";

interface Match {
  readonly kind: "match";
  readonly cls: SelectorClass;
  readonly key: string;
  readonly op: MatchOperator;
  readonly value: string | number | boolean;
}
type Expr =
  | Match
  | { readonly kind: "not"; readonly operand: Expr }
  | { readonly kind: "and" | "or"; readonly operands: Expr[] };

const WORDS = ["", "a", "web", "db", "v1", "a b", 'say "hi"', "tab\there", "ünï", "not", "and", "in", "x`y"];
const KEYS = ["env", "x", "my key", "a.b", "not"];
const PATTERNS = ["^a", "b$", "w.b", "^$", ".*", "[0-9]", "(?i)WEB", "a|d"];
const NUMBERS = [0, 80, -1, 8080, 5];

const OPS: Record<SelectorClass, readonly MatchOperator[]> = {
  Name: ["Equal", "Not Equal", "In", "Not In", "Matches", "Not Matches"],
  MetaKey: ["Equal", "Not Equal", "In", "Not In", "Matches", "Not Matches"],
  ItemLabel: ["Equal", "Not Equal", "In", "Not In", "Matches", "Not Matches"],
  Port: ["Equal", "Not Equal"],
  ItemSize: ["Equal", "Not Equal"],
  Enabled: ["Equal", "Not Equal"],
  Tags: ["In", "Not In", "Is Empty", "Is Not Empty"],
  Meta: ["In", "Not In", "Is Empty", "Is Not Empty"],
  Items: ["Is Empty", "Is Not Empty"],
};

const matchArb: fc.Arbitrary<Match> = fc
  .record({
    cls: fc.constantFrom(...(Object.keys(OPS) as SelectorClass[])),
    key: fc.constantFrom(...KEYS),
    opIndex: fc.nat(),
    word: fc.constantFrom(...WORDS),
    pattern: fc.constantFrom(...PATTERNS),
    number: fc.constantFrom(...NUMBERS),
    flag: fc.boolean(),
  })
  .map(({ cls, key, opIndex, word, pattern, number, flag }) => {
    const ops = OPS[cls];
    const op = ops[opIndex % ops.length]!;
    const value =
      cls === "Port" || cls === "ItemSize"
        ? number
        : cls === "Enabled"
          ? flag
          : cls === "Meta"
            ? key
            : op === "Matches" || op === "Not Matches"
              ? pattern
              : word;
    return { kind: "match" as const, cls, key, op, value };
  });

const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    matchArb,
    tie("expr").map((operand): Expr => ({ kind: "not", operand })),
    fc
      .record({
        kind: fc.constantFrom("and" as const, "or" as const),
        operands: fc.array(tie("expr"), { minLength: 2, maxLength: 3 }),
      })
      .map((e): Expr => e),
  ),
})).expr;

const recordArb = fc.record(
  {
    Name: fc.constantFrom(...WORDS, "web-1", "dab"),
    Port: fc.constantFrom(...NUMBERS),
    Enabled: fc.boolean(),
    Tags: fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }),
    Meta: fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...WORDS, "web"), { maxKeys: 3 }),
    Items: fc.array(
      fc.record(
        { Label: fc.constantFrom(...WORDS, "web"), Size: fc.constantFrom(...NUMBERS) },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: [] },
);
type Rec = typeof recordArb extends fc.Arbitrary<infer R> ? R : never;

// ---- the reference evaluator: written over the generated tree and the record, sharing nothing with src ----

function refString(op: MatchOperator, actual: string, value: string): boolean {
  switch (op) {
    case "Equal":
      return actual === value;
    case "Not Equal":
      return actual !== value;
    case "In":
      return actual.includes(value);
    case "Not In":
      return !actual.includes(value);
    case "Matches":
    case "Not Matches": {
      const caseless = value.startsWith("(?i)");
      const hit = new RegExp(caseless ? value.slice(4) : value, caseless ? "i" : "").test(actual);
      return op === "Matches" ? hit : !hit;
    }
    default:
      throw new Error(`not a string operator: ${op}`);
  }
}

const negatable = (op: MatchOperator, positive: boolean): boolean =>
  op === "Not Equal" || op === "Not In" || op === "Is Not Empty" || op === "Not Matches"
    ? !positive
    : positive;

function refMatch(m: Match, rec: Rec): boolean {
  switch (m.cls) {
    case "Name":
      return refString(m.op, rec.Name ?? "", String(m.value));
    case "Port":
      return negatable(m.op, (rec.Port ?? 0) === m.value);
    case "Enabled":
      return negatable(m.op, (rec.Enabled ?? false) === m.value);
    case "Tags": {
      const tags = rec.Tags ?? [];
      return negatable(m.op, m.op.includes("Empty") ? tags.length === 0 : tags.includes(String(m.value)));
    }
    case "Meta": {
      const keys = Object.keys(rec.Meta ?? {});
      return negatable(m.op, m.op.includes("Empty") ? keys.length === 0 : keys.includes(String(m.value)));
    }
    case "MetaKey": {
      const meta = rec.Meta ?? {};
      if (!(m.key in meta)) return m.op.startsWith("Not");
      return refString(m.op, meta[m.key]!, String(m.value));
    }
    case "Items":
      return negatable(m.op, (rec.Items ?? []).length === 0);
    case "ItemLabel":
      return (rec.Items ?? []).some((item) => refString(m.op, item.Label ?? "", String(m.value)));
    case "ItemSize":
      return (rec.Items ?? []).some((item) => negatable(m.op, (item.Size ?? 0) === m.value));
  }
}

function refEval(e: Expr, rec: Rec): boolean {
  switch (e.kind) {
    case "match":
      return refMatch(e, rec);
    case "not":
      return !refEval(e.operand, rec);
    case "and":
      return e.operands.every((operand) => refEval(operand, rec));
    case "or":
      return e.operands.some((operand) => refEval(operand, rec));
  }
}

// ---- the printer: random equivalent spellings, driven by a seeded choice function ----

function chooser(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
}

function printString(value: string, pick: (n: number) => number): string {
  // A bare `not` value is ambiguous after the unary `not`: go-bexpr's PEG reads `not not not in X` as
  // not(not("not" in X)), so that spelling does not print the tree `not("not" not in X)`; quote it instead.
  const bare = /^[A-Za-z][A-Za-z0-9_/]*$/.test(value) && value !== "not";
  const choice = pick(3);
  if (choice === 0 && bare) return value;
  if (choice === 1 && !value.includes("`") && !value.includes("\r")) return `\`${value}\``;
  return JSON.stringify(value);
}

function printValue(value: string | number | boolean, pick: (n: number) => number): string {
  if (typeof value === "number") return pick(2) === 0 ? String(value) : `"${value}"`;
  if (typeof value === "boolean") return pick(2) === 0 ? String(value) : `"${value}"`;
  return printString(value, pick);
}

function printSelector(m: Match, pick: (n: number) => number): string {
  switch (m.cls) {
    case "MetaKey":
      return /^[A-Za-z][A-Za-z0-9_]*$/.test(m.key) && pick(2) === 0
        ? `Meta.${m.key}`
        : `Meta[${pick(2) === 0 ? JSON.stringify(m.key) : `\`${m.key}\``}]`;
    case "ItemLabel":
      return "Items.Label";
    case "ItemSize":
      return "Items.Size";
    default:
      return m.cls;
  }
}

function printMatch(m: Match, pick: (n: number) => number): string {
  const ws = (): string => [" ", "  ", "\n", "\t "][pick(4)]!;
  const sel = printSelector(m, pick);
  const val = printValue(m.value, pick);
  switch (m.op) {
    case "Equal":
      return `${sel}${pick(2) ? ws() : ""}==${pick(2) ? ws() : ""}${val}`;
    case "Not Equal":
      return `${sel}${ws()}!=${ws()}${val}`;
    case "In":
      return pick(2) ? `${val}${ws()}in${ws()}${sel}` : `${sel}${ws()}contains${ws()}${val}`;
    case "Not In":
      return pick(2)
        ? `${val}${ws()}not${ws()}in${ws()}${sel}`
        : `${sel}${ws()}not${ws()}contains${ws()}${val}`;
    case "Matches":
      return `${sel}${ws()}matches${ws()}${val}`;
    case "Not Matches":
      return `${sel}${ws()}not${ws()}matches${ws()}${val}`;
    case "Is Empty":
      return `${sel}${ws()}is${ws()}empty`;
    case "Is Not Empty":
      return `${sel}${ws()}is${ws()}not${ws()}empty`;
  }
}

const PRECEDENCE = { or: 1, and: 2, not: 3, match: 4 } as const;

function print(e: Expr, pick: (n: number) => number, minPrecedence = 0): string {
  let text: string;
  switch (e.kind) {
    case "match":
      text = printMatch(e, pick);
      break;
    case "not":
      text = `not ${print(e.operand, pick, PRECEDENCE.not)}`;
      break;
    default:
      text = e.operands.map((operand) => print(operand, pick, PRECEDENCE[e.kind] + 1)).join(` ${e.kind} `);
  }
  const needsParens = PRECEDENCE[e.kind] < minPrecedence;
  return needsParens || pick(6) === 0 ? `(${pick(2) ? " " : ""}${text})` : text;
}

describe("filter property: random grammar expressions agree with a reference evaluator", () => {
  it("evaluates every printed spelling as the tree says", () => {
    fc.assert(
      fc.property(
        exprArb,
        fc.integer(),
        fc.array(recordArb, { minLength: 1, maxLength: 5 }),
        (expr, seed, records) => {
          const text = print(expr, chooser(seed));
          const filter = compileFilter(text, schema);
          for (const record of records) {
            expect(filter(record), `${text} on ${JSON.stringify(record)}`).toBe(refEval(expr, record));
          }
        },
      ),
      { numRuns: 600 },
    );
  });
});

describe("filter fuzz: any input either compiles or raises a FilterError", () => {
  const samples: unknown[] = [
    {},
    { Name: "web", Tags: ["a"], Meta: { env: "x" }, Items: [{ Label: "a", Size: 1 }] },
    null,
  ];

  function check(input: string): void {
    let filter: ((record: unknown) => boolean) | undefined;
    try {
      filter = compileFilter(input, schema);
    } catch (error) {
      if (!(error instanceof FilterError)) throw error;
      expect(error.message).not.toContain("\n");
      return;
    }
    for (const record of samples) expect(typeof filter(record)).toBe("boolean");
  }

  it("survives random strings", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 60 }), check), { numRuns: 3000 });
  });

  it("survives random soups of grammar tokens", () => {
    const token = fc.constantFrom(
      "Name",
      "Port",
      "Enabled",
      "Tags",
      "Meta",
      "Meta.env",
      'Meta["a b"]',
      "Items",
      "Items.Label",
      "Items.Size",
      "Bogus",
      "==",
      "!=",
      "in",
      "not",
      "and",
      "or",
      "(",
      ")",
      "is",
      "empty",
      "contains",
      "matches",
      '"x"',
      "`y`",
      '"(("',
      '"[a-"',
      "1",
      "-2",
      "0x1",
      "1.5",
      '"',
      "`",
      "[",
      "]",
      ".",
      "\\",
      '"\\q"',
      '"\\u12"',
      "true",
      "\n",
    );
    const soup = fc
      .array(fc.tuple(token, fc.constantFrom(" ", "", "  ")), { maxLength: 14 })
      .map((parts) => parts.map(([t, ws]) => t + ws).join(""));
    fc.assert(fc.property(soup, check), { numRuns: 4000 });
  });
});
