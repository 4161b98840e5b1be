/**
 * Binding-rule and namespace-rule selectors: the subset of Consul's boolean expressions that identities
 * need. `field == "v"`, `field != "v"`, `"v" in field`, `"v" not in field`, `field contains "v"`,
 * `field is empty`, `field is not empty`, joined with `and` / `or` (`and` binds tighter). Fields are the
 * identity's selectable names (`serviceaccount.name`, `value.email`, `list.groups`); a value may be quoted
 * or bare.
 */

export type FieldValue = string | readonly string[];
export type SelectableFields = Readonly<Record<string, FieldValue>>;

/** The fields a method's identities carry: name -> whether it holds a list. */
export type FieldKinds = ReadonlyMap<string, "value" | "list">;

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorError";
  }
}

type Match =
  | {
      readonly op: "==" | "!=" | "in" | "not in" | "contains";
      readonly field: string;
      readonly value: string;
    }
  | { readonly op: "empty" | "not empty"; readonly field: string };

/** Disjunction of conjunctions. */
export type Selector = readonly (readonly Match[])[];

interface Token {
  readonly text: string;
  readonly quoted: boolean;
}

function tokenize(source: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '"' || ch === "`") {
      let text = "";
      let j = i + 1;
      for (; j < source.length && source[j] !== ch; j++) {
        if (ch === '"' && source[j] === "\\" && j + 1 < source.length) j++;
        text += source[j];
      }
      if (j >= source.length) throw new SelectorError(`unterminated string at ${i + 1}`);
      out.push({ text, quoted: true });
      i = j + 1;
    } else if (source.startsWith("==", i) || source.startsWith("!=", i)) {
      out.push({ text: source.slice(i, i + 2), quoted: false });
      i += 2;
    } else {
      const m = /^[^\s"`=!]+/.exec(source.slice(i));
      if (!m) throw new SelectorError(`unexpected ${JSON.stringify(ch)} at ${i + 1}`);
      out.push({ text: m[0], quoted: false });
      i += m[0].length;
    }
  }
  return out;
}

const isWord = (t: Token | undefined, word: string) => t !== undefined && !t.quoted && t.text === word;

/** Parses `source` and checks every field against `fields`; "" selects everything. */
export function parseSelector(source: string, fields: FieldKinds): Selector {
  const tokens = tokenize(source);
  if (tokens.length === 0) return [[]];
  let at = 0;
  const next = () => tokens[at++];
  const field = (t: Token | undefined): string => {
    if (t === undefined || t.quoted) throw new SelectorError("expected a field name");
    if (!fields.has(t.text)) throw new SelectorError(`unknown field ${JSON.stringify(t.text)}`);
    return t.text;
  };
  const value = (t: Token | undefined): string => {
    if (t === undefined) throw new SelectorError("expected a value");
    return t.text;
  };
  const match = (): Match => {
    const first = next();
    if (isWord(tokens[at], "in") || (isWord(tokens[at], "not") && isWord(tokens[at + 1], "in"))) {
      const negated = isWord(next(), "not");
      if (negated) next();
      const f = field(next());
      return { op: negated ? "not in" : "in", field: f, value: value(first) };
    }
    const f = field(first);
    const kind = fields.get(f);
    const op = next();
    if (isWord(op, "==") || isWord(op, "!=")) {
      if (kind === "list") throw new SelectorError(`${op?.text} is not supported on the list field ${f}`);
      return { op: op?.text === "==" ? "==" : "!=", field: f, value: value(next()) };
    }
    if (isWord(op, "contains")) return { op: "contains", field: f, value: value(next()) };
    if (isWord(op, "is")) {
      const negated = isWord(tokens[at], "not");
      if (negated) next();
      if (!isWord(next(), "empty")) throw new SelectorError("expected 'empty' after 'is'");
      return { op: negated ? "not empty" : "empty", field: f };
    }
    throw new SelectorError(`expected an operator after ${f}`);
  };
  const out: Match[][] = [[match()]];
  while (at < tokens.length) {
    const joiner = next();
    if (isWord(joiner, "and")) (out[out.length - 1] as Match[]).push(match());
    else if (isWord(joiner, "or")) out.push([match()]);
    else throw new SelectorError(`expected 'and' or 'or', found ${JSON.stringify(joiner?.text)}`);
  }
  return out;
}

function holds(m: Match, fields: SelectableFields): boolean {
  const v = fields[m.field] ?? "";
  switch (m.op) {
    case "==":
      return v === m.value;
    case "!=":
      return v !== m.value;
    case "in":
    case "contains":
      return v.includes(m.value);
    case "not in":
      return !v.includes(m.value);
    case "empty":
      return v.length === 0;
    case "not empty":
      return v.length > 0;
  }
}

export function selects(selector: Selector, fields: SelectableFields): boolean {
  return selector.some((all) => all.every((m) => holds(m, fields)));
}
