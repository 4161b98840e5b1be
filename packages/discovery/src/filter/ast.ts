/** The syntax tree of a filter expression, as go-bexpr's grammar defines it. */

/** Match operators, named as Consul's documentation and go-bexpr's error messages name them. */
export type MatchOperator =
  | "Equal"
  | "Not Equal"
  | "In"
  | "Not In"
  | "Is Empty"
  | "Is Not Empty"
  | "Matches"
  | "Not Matches";

export const MATCH_OPERATORS: readonly MatchOperator[] = [
  "Equal",
  "Not Equal",
  "In",
  "Not In",
  "Is Empty",
  "Is Not Empty",
  "Matches",
  "Not Matches",
];

export interface MatchValue {
  /** The value as written, after unquoting: what go-bexpr calls the raw value. */
  readonly raw: string;
  readonly position: number;
}

export interface MatchExpression {
  readonly kind: "match";
  /** Selector segments: `Meta.env` and `Meta["env"]` are both ["Meta", "env"]. */
  readonly selector: readonly string[];
  readonly operator: MatchOperator;
  /** Absent for Is Empty and Is Not Empty. */
  readonly value: MatchValue | undefined;
  readonly position: number;
}

export interface NotExpression {
  readonly kind: "not";
  readonly operand: FilterExpression;
}

/** `and` and `or` chains are kept flat, so long chains cost no stack depth when evaluated. */
export interface LogicalExpression {
  readonly kind: "and" | "or";
  readonly operands: readonly FilterExpression[];
}

export type FilterExpression = MatchExpression | NotExpression | LogicalExpression;

/** The dotted form go-bexpr prints a selector in, used in error messages. */
export function selectorText(selector: readonly string[]): string {
  return selector.join(".");
}
