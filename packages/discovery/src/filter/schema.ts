import type { MatchOperator } from "./ast.js";

/**
 * The type of a record field a filter may select. Which operators a selector allows follows from its type, the
 * way go-bexpr derives its field configurations from Go types; Consul's per-endpoint tables are that derivation.
 */
export type FieldType =
  | { readonly kind: "string" }
  | { readonly kind: "bool" }
  | { readonly kind: "int" }
  /** A map with string keys: `Meta`, and `Meta.<any>` for its values. */
  | { readonly kind: "map"; readonly value: FieldType }
  /** A list: of primitives (`Tags`, searched with `in`), or of structs whose fields are selected through it. */
  | { readonly kind: "list"; readonly element: FieldType }
  | { readonly kind: "struct"; readonly fields: Readonly<Record<string, FieldType>> };

export type PrimitiveType = Extract<FieldType, { kind: "string" | "bool" | "int" }>;

/** The record type a filter is compiled against: the shape of one entry of an endpoint's result. */
export type FilterSchema = Extract<FieldType, { kind: "struct" }>;

/** Builders for schemas: `field.struct({ Port: field.int, Meta: field.map(field.string) })`. */
export const field = {
  string: { kind: "string" } as FieldType,
  bool: { kind: "bool" } as FieldType,
  int: { kind: "int" } as FieldType,
  map: (value: FieldType): FieldType => ({ kind: "map", value }),
  list: (element: FieldType): FieldType => ({ kind: "list", element }),
  struct: (fields: Record<string, FieldType>): FilterSchema => ({ kind: "struct", fields }),
};

export function isPrimitive(type: FieldType): type is PrimitiveType {
  return type.kind === "string" || type.kind === "bool" || type.kind === "int";
}

const STRING_OPS: readonly MatchOperator[] = ["Equal", "Not Equal", "In", "Not In", "Matches", "Not Matches"];
const SCALAR_OPS: readonly MatchOperator[] = ["Equal", "Not Equal"];
const MAP_OPS: readonly MatchOperator[] = ["Is Empty", "Is Not Empty", "In", "Not In"];
const PRIMITIVE_LIST_OPS: readonly MatchOperator[] = ["In", "Not In", "Is Empty", "Is Not Empty"];
const STRUCT_LIST_OPS: readonly MatchOperator[] = ["Is Empty", "Is Not Empty"];
const NONE: readonly MatchOperator[] = [];

/** The operators a selector ending at a field of this type supports, in Consul's documentation order. */
export function operatorsFor(type: FieldType): readonly MatchOperator[] {
  switch (type.kind) {
    case "string":
      return STRING_OPS;
    case "bool":
    case "int":
      return SCALAR_OPS;
    case "map":
      return MAP_OPS;
    case "list":
      return isPrimitive(type.element) ? PRIMITIVE_LIST_OPS : STRUCT_LIST_OPS;
    case "struct":
      return NONE;
  }
}

/**
 * The type a selector segment leads to from `type`, or undefined when the segment does not exist. A list of
 * structs is transparent: `Upstreams.DestinationName` selects the field of every element.
 */
export function childType(type: FieldType, segment: string): FieldType | undefined {
  switch (type.kind) {
    case "struct":
      return Object.hasOwn(type.fields, segment) ? type.fields[segment] : undefined;
    case "map":
      return type.value;
    case "list":
      return type.element.kind === "struct" ? childType(type.element, segment) : undefined;
    default:
      return undefined;
  }
}

export interface SelectorDescription {
  /** Dotted selector, with `<any>` standing for a map key, as Consul's documentation writes it. */
  readonly selector: string;
  readonly operators: readonly MatchOperator[];
}

/** Every selector a schema accepts with the operators each supports (selectors without operators omitted). */
export function describeSchema(schema: FilterSchema): SelectorDescription[] {
  const out: SelectorDescription[] = [];
  const walk = (type: FieldType, path: string): void => {
    const operators = operatorsFor(type);
    if (path !== "" && operators.length > 0) out.push({ selector: path, operators });
    const prefix = path === "" ? "" : `${path}.`;
    const fields =
      type.kind === "struct"
        ? type.fields
        : type.kind === "list" && type.element.kind === "struct"
          ? type.element.fields
          : undefined;
    if (fields) for (const [name, field] of Object.entries(fields)) walk(field, `${prefix}${name}`);
    if (type.kind === "map") walk(type.value, `${prefix}<any>`);
  };
  walk(schema, "");
  return out.sort((a, b) => (a.selector < b.selector ? -1 : a.selector > b.selector ? 1 : 0));
}
