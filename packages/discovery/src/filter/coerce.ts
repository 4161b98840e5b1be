import type { PrimitiveType } from "./schema.js";

export type Primitive = string | number | boolean;

/**
 * Converts a filter value to the type of the field it is compared with, accepting what Go's strconv accepts
 * (go-bexpr coerces with ParseBool and ParseInt(s, 0, 64)). Returns undefined when the value does not convert.
 */
export function coerce(raw: string, type: PrimitiveType): Primitive | undefined {
  switch (type.kind) {
    case "string":
      return raw;
    case "bool":
      return parseGoBool(raw);
    case "int":
      return parseGoInt(raw);
  }
}

const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

function parseGoBool(raw: string): boolean | undefined {
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  return undefined;
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

// The forms Go's base-0 integer parsing reads, each with how BigInt spells it. Underscores may separate digits.
const INT_SHAPES: readonly [RegExp, (digits: string) => string][] = [
  [/^0[xX](_?[0-9a-fA-F])+$/, (digits) => digits],
  [/^0[oO](_?[0-7])+$/, (digits) => digits],
  [/^0[bB](_?[01])+$/, (digits) => digits],
  [/^0(_?[0-7])+$/, (digits) => `0o${digits.slice(1)}`], // a bare leading 0 means octal
  [/^(0|[1-9](_?[0-9])*)$/, (digits) => digits],
];

function parseGoInt(raw: string): number | undefined {
  const negative = raw.startsWith("-");
  const body = negative || raw.startsWith("+") ? raw.slice(1) : raw;
  for (const [shape, spell] of INT_SHAPES) {
    if (!shape.test(body)) continue;
    const magnitude = BigInt(spell(body.replaceAll("_", "")));
    const value = negative ? -magnitude : magnitude;
    return value > INT64_MAX || value < INT64_MIN ? undefined : Number(value);
  }
  return undefined;
}
