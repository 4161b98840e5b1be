import { RE2JS } from "re2js";
import { type FilterExpression, type MatchExpression, selectorText } from "./ast.js";
import { coerce, type Primitive } from "./coerce.js";
import { FilterError } from "./errors.js";
import { parseFilter } from "./parse.js";
import { childType, type FieldType, type FilterSchema, isPrimitive, operatorsFor } from "./schema.js";

/** Decides whether one record (a plain object shaped like Consul's JSON output) passes the filter. */
export type FilterPredicate = (record: unknown) => boolean;

type Test = (value: unknown) => boolean;

const acceptAll: FilterPredicate = () => true;

const VALUE_KINDS: Readonly<Record<string, string>> = { int: "an integer", bool: "a boolean" };

/**
 * Parses and validates a filter expression against a schema once, returning a predicate to run per record.
 * The empty expression accepts everything, as Consul treats an absent filter. Throws FilterError only.
 *
 * Evaluation follows go-bexpr: a missing field reads as its type's zero value; a selector through a list of
 * structs is true when any element satisfies it (so `!=` means "some element differs", and an empty list is
 * false); a missing map key makes Equal, In, Is Not Empty and Matches false and their negations true.
 * (go-bexpr leaves Matches out of that rule, so a missing key "matches" every pattern there; that reads as an
 * oversight and is not copied.)
 */
export function compileFilter(expression: string, schema: FilterSchema): FilterPredicate {
  if (expression === "") return acceptAll;
  return compileExpression(parseFilter(expression), schema);
}

function compileExpression(expression: FilterExpression, schema: FilterSchema): FilterPredicate {
  switch (expression.kind) {
    case "match":
      return compileMatch(expression, schema);
    case "not": {
      const operand = compileExpression(expression.operand, schema);
      return (record) => !operand(record);
    }
    case "and": {
      const operands = expression.operands.map((operand) => compileExpression(operand, schema));
      return (record) => {
        for (const operand of operands) if (!operand(record)) return false;
        return true;
      };
    }
    case "or": {
      const operands = expression.operands.map((operand) => compileExpression(operand, schema));
      return (record) => {
        for (const operand of operands) if (operand(record)) return true;
        return false;
      };
    }
  }
}

function compileMatch(match: MatchExpression, schema: FilterSchema): FilterPredicate {
  const { selector, operator } = match;
  // types[i] is the type selector[i] is looked up in; the last entry is the selected field's type.
  const types: FieldType[] = [schema];
  selector.forEach((segment, i) => {
    const next = childType(types[i]!, segment);
    if (next === undefined) {
      throw new FilterError(
        `Selector "${selectorText(selector.slice(0, i + 1))}" is not valid`,
        match.position,
      );
    }
    types.push(next);
  });
  const target = types[selector.length]!;
  if (!operatorsFor(target).includes(operator)) {
    throw new FilterError(
      `Invalid match operator "${operator}" for selector "${selectorText(selector)}"`,
      match.position,
    );
  }
  const negated =
    operator === "Not Equal" ||
    operator === "Not In" ||
    operator === "Is Not Empty" ||
    operator === "Not Matches";
  const positive = terminalTest(match, target);
  let test: Test = negated ? (value) => !positive(value) : positive;
  // A missing map key cannot equal, contain, match or be a non-empty anything; the negations hold.
  const whenKeyMissing = negated !== (operator === "Is Empty" || operator === "Is Not Empty");
  for (let i = selector.length - 1; i >= 0; i--) test = step(types[i]!, selector[i]!, test, whenKeyMissing);
  return test;
}

/** Wraps `inner` (which reads the value of `segment`) to read it from a value of type `parent`. */
function step(parent: FieldType, segment: string, inner: Test, whenKeyMissing: boolean): Test {
  switch (parent.kind) {
    case "map":
      return (value) => {
        const object = asObject(value);
        return object !== undefined && Object.hasOwn(object, segment)
          ? inner(object[segment])
          : whenKeyMissing;
      };
    case "list": {
      const ofElement: Test = (element) => inner(property(element, segment));
      return (value) => Array.isArray(value) && value.some(ofElement);
    }
    default:
      return (value) => inner(property(value, segment));
  }
}

/** The un-negated test of the operator on the selected value (Equal for Not Equal, and so on). */
function terminalTest(match: MatchExpression, type: FieldType): Test {
  const operator = match.operator;
  const selector = selectorText(match.selector);
  const coerced = (as: FieldType): Primitive => {
    const raw = match.value?.raw ?? "";
    const value = isPrimitive(as) ? coerce(raw, as) : raw;
    if (value === undefined) {
      throw new FilterError(
        `Failed to coerce value ${JSON.stringify(raw)} for selector "${selector}": not ${VALUE_KINDS[as.kind]}`,
        match.value?.position,
      );
    }
    return value;
  };
  switch (operator) {
    case "Equal":
    case "Not Equal": {
      const expected = coerced(type);
      return (value) => asPrimitive(value, type) === expected;
    }
    case "In":
    case "Not In":
      return containsTest(type, coerced(type.kind === "list" ? type.element : type));
    case "Is Empty":
    case "Is Not Empty":
      return type.kind === "map" ? isEmptyMap : isEmptyList;
    case "Matches":
    case "Not Matches": {
      const pattern = compileRegex(match.value?.raw ?? "", match.value?.position);
      return (value) => pattern.test(asPrimitive(value, type) as string);
    }
  }
}

function containsTest(type: FieldType, needle: Primitive): Test {
  switch (type.kind) {
    case "map":
      return (value) => {
        const object = asObject(value);
        return object !== undefined && Object.hasOwn(object, needle as string);
      };
    case "list": {
      const element = type.element;
      return (value) => Array.isArray(value) && value.some((item) => asPrimitive(item, element) === needle);
    }
    default:
      // `in` on a string is a substring test.
      return (value) => (asPrimitive(value, type) as string).includes(needle as string);
  }
}

function isEmptyList(value: unknown): boolean {
  return !Array.isArray(value) || value.length === 0;
}

function isEmptyMap(value: unknown): boolean {
  const object = asObject(value);
  if (object === undefined) return true;
  for (const key in object) if (Object.hasOwn(object, key)) return false;
  return true;
}

function compileRegex(source: string, position: number | undefined): RE2JS {
  try {
    // RE2 syntax and linear-time matching, as Go's regexp: a filter cannot make the server backtrack forever.
    return RE2JS.compile(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new FilterError(
      `Failed to compile regular expression ${JSON.stringify(source)}: ${reason}`,
      position,
    );
  }
}

/** The value read as the field's type; absent values read as the zero value, as Go's would. */
function asPrimitive(value: unknown, type: FieldType): Primitive {
  switch (type.kind) {
    case "int":
      return typeof value === "number" ? value : 0;
    case "bool":
      return value === true;
    default:
      return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function property(value: unknown, key: string): unknown {
  const object = asObject(value);
  return object !== undefined && Object.hasOwn(object, key) ? object[key] : undefined;
}
