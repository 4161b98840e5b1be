/**
 * The part of HashiCorp's interpolation language (HIL) prepared query templates use: literal text with
 * `${...}` interpolations (`$${` is a literal `${`), each a variable (`name.full`), an integer, a
 * double-quoted string, or a function call (`match(1)`). Parsing happens when a template is stored, so a
 * malformed one is refused then; evaluation happens per lookup.
 */

export type HilExpr =
  | { readonly kind: "var"; readonly name: string }
  | { readonly kind: "int"; readonly value: number }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "call"; readonly name: string; readonly args: readonly HilExpr[] };

/** Literal text and interpolations, in order. */
export type HilTemplate = readonly (string | HilExpr)[];

export class HilError extends Error {
  override readonly name = "HilError";
}

export type HilValue =
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "int"; readonly value: number };

export interface HilScope {
  readonly variables: Readonly<Record<string, string>>;
  readonly functions: Readonly<Record<string, (args: readonly HilValue[]) => string>>;
}

export function parseHil(text: string): HilTemplate {
  const out: (string | HilExpr)[] = [];
  let literal = "";
  let i = 0;
  while (i < text.length) {
    if (text.startsWith("$${", i)) {
      literal += "${";
      i += 3;
    } else if (text.startsWith("${", i)) {
      if (literal) out.push(literal);
      literal = "";
      const parser = new ExprParser(text, i + 2);
      out.push(parser.expression());
      parser.expect("}");
      i = parser.at;
    } else {
      literal += text[i];
      i++;
    }
  }
  if (literal || out.length === 0) out.push(literal);
  return out;
}

class ExprParser {
  constructor(
    private readonly text: string,
    public at: number,
  ) {}

  expression(): HilExpr {
    this.#space();
    const ch = this.text[this.at];
    if (ch === undefined) throw new HilError("expected expression, got end of input");
    if (ch === '"') return { kind: "string", value: this.#string() };
    const number = /^-?[0-9]+/.exec(this.text.slice(this.at));
    if (number) {
      this.at += number[0].length;
      return { kind: "int", value: Number.parseInt(number[0], 10) };
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.text.slice(this.at));
    if (!ident) throw new HilError(`unexpected character ${JSON.stringify(ch)} at position ${this.at}`);
    this.at += ident[0].length;
    this.#space();
    if (this.text[this.at] !== "(") return { kind: "var", name: ident[0] };
    this.at++;
    const args: HilExpr[] = [];
    this.#space();
    if (this.text[this.at] === ")") {
      this.at++;
      return { kind: "call", name: ident[0], args };
    }
    for (;;) {
      args.push(this.expression());
      this.#space();
      const next = this.text[this.at];
      this.at++;
      if (next === ")") return { kind: "call", name: ident[0], args };
      if (next !== ",") throw new HilError(`expected "," or ")" in call to ${ident[0]}`);
    }
  }

  expect(ch: string): void {
    this.#space();
    if (this.text[this.at] !== ch) {
      const got = this.text[this.at];
      throw new HilError(`expected "${ch}", got ${got === undefined ? "end of input" : JSON.stringify(got)}`);
    }
    this.at++;
  }

  #string(): string {
    let value = "";
    this.at++;
    for (;;) {
      const ch = this.text[this.at++];
      if (ch === undefined) throw new HilError("unterminated string literal");
      if (ch === '"') return value;
      if (ch === "\\") {
        const escaped = this.text[this.at++];
        if (escaped === undefined) throw new HilError("unterminated string literal");
        value += escaped === "n" ? "\n" : escaped === "t" ? "\t" : escaped;
      } else value += ch;
    }
  }

  #space(): void {
    while (this.text[this.at] === " " || this.text[this.at] === "\t") this.at++;
  }
}

function evalExpr(e: HilExpr, scope: HilScope): HilValue {
  switch (e.kind) {
    case "int":
      return { type: "int", value: e.value };
    case "string":
      return { type: "string", value: e.value };
    case "var": {
      const value = scope.variables[e.name];
      if (value === undefined || !Object.hasOwn(scope.variables, e.name)) {
        throw new HilError(`unknown variable accessed: ${e.name}`);
      }
      return { type: "string", value };
    }
    case "call": {
      const fn = Object.hasOwn(scope.functions, e.name) ? scope.functions[e.name] : undefined;
      if (!fn) throw new HilError(`unknown function called: ${e.name}`);
      return { type: "string", value: fn(e.args.map((a) => evalExpr(a, scope))) };
    }
  }
}

/**
 * A lone interpolation keeps its type (so `${1}` is an int, which the caller refuses where a string is
 * wanted); text mixed with interpolations concatenates them as strings.
 */
export function evaluateHil(template: HilTemplate, scope: HilScope): HilValue {
  const [only] = template;
  if (template.length === 1 && only !== undefined && typeof only !== "string") return evalExpr(only, scope);
  let out = "";
  for (const part of template) out += typeof part === "string" ? part : String(evalExpr(part, scope).value);
  return { type: "string", value: out };
}
