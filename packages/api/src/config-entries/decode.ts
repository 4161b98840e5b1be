import type { z } from "zod";
import { defOf } from "../json/zod-def.js";

/**
 * Consul decodes a config entry body with mapstructure rather than encoding/json (see json/canonical-keys.ts
 * for that one), with its own hooks, and this reproduces them against a zod schema before validation:
 * - field names match case-insensitively and in the config-file snake_case form (`connect_timeout` is
 *   `ConnectTimeout`); keys of free-form maps (`Meta`, `Config`, `Subsets` names) stay exactly as sent;
 * - a one-element list where an object or scalar belongs is unwrapped and a single value where a list belongs
 *   is wrapped (HCL gives a block as either), an empty list or null leaves the field unset;
 * - weakly typed scalars: numeric strings for numbers, Go's boolean spellings for booleans, numbers and
 *   booleans for strings;
 * - fields the schema does not know are collected (as `Routes[0].Match.Foo`) so the caller can refuse them.
 */
export function decodeWeakly(schema: z.ZodType, value: unknown, path: string, unused: string[]): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return def.innerType ? decodeWeakly(def.innerType, value, path, unused) : value;
    case "pipe":
      return def.in ? decodeWeakly(def.in, value, path, unused) : value;
    case "lazy":
      return def.getter ? decodeWeakly(def.getter(), value, path, unused) : value;
    case "array": {
      if (value === null || value === undefined) return undefined;
      const list = Array.isArray(value) ? value : [value];
      const element = def.element;
      return element ? list.map((item, i) => decodeWeakly(element, item, `${path}[${i}]`, unused)) : list;
    }
    case "object": {
      const object = single(value);
      if (!isObject(object) || !def.shape) return object;
      return decodeObject(def.shape, object, path, unused);
    }
    case "record": {
      const map = single(value);
      if (!isObject(map)) return map;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(map)) {
        out[key] = def.valueType
          ? decodeWeakly(def.valueType, map[key], `${path}[${key}]`, unused)
          : map[key];
      }
      return out;
    }
    case "union": {
      const v = single(value);
      const objectOption = (def.options ?? []).find((o) => defOf(o).type === "object");
      return objectOption && isObject(v) ? decodeWeakly(objectOption, v, path, unused) : v;
    }
    case "number":
      return weakNumber(single(value));
    case "boolean":
      return weakBool(single(value));
    case "string":
    case "enum":
    case "literal":
      return weakString(single(value));
    default:
      return plain(value);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** HookWeakDecodeFromSlice: `[x]` reads as `x`, `[]` and null as unset. */
function single(value: unknown): unknown {
  if (value === null) return undefined;
  if (!Array.isArray(value)) return value;
  return value.length === 0 ? undefined : value.length === 1 ? value[0] : value;
}

/** `connect_timeout`, `ConnectTimeout` and `connecttimeout` all name the same field. */
const fold = (key: string) => key.replaceAll("_", "").toLowerCase();

const foldedShapes = new WeakMap<object, Map<string, string>>();

function foldedFields(shape: Record<string, z.ZodType>): Map<string, string> {
  let folded = foldedShapes.get(shape);
  if (folded === undefined) {
    folded = new Map(Object.keys(shape).map((field) => [fold(field), field]));
    foldedShapes.set(shape, folded);
  }
  return folded;
}

function decodeObject(
  shape: Record<string, z.ZodType>,
  value: Record<string, unknown>,
  path: string,
  unused: string[],
): Record<string, unknown> {
  const folded = foldedFields(shape);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = Object.hasOwn(shape, key) ? key : folded.get(fold(key));
    const where = path === "" ? key : `${path}.${key}`;
    if (field === undefined) {
      unused.push(where);
      continue;
    }
    const decoded = decodeWeakly(
      shape[field] as z.ZodType,
      value[key],
      path === "" ? field : `${path}.${field}`,
      unused,
    );
    if (decoded !== undefined) out[field] = decoded;
  }
  return out;
}

function weakNumber(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (trimmed === "") return 0;
    const n = Number(trimmed);
    return Number.isFinite(n) ? n : value;
  }
  return value;
}

const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False", ""]);

function weakBool(value: unknown): unknown {
  if (typeof value === "number") return value !== 0;
  if (typeof value === "string") return TRUE.has(value) ? true : FALSE.has(value) ? false : value;
  return value;
}

function weakString(value: unknown): unknown {
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "boolean") return value ? "1" : "0";
  return value;
}

/** Free-form values (Config, Arguments): kept as sent, but uint64-exact integers become numbers as Go's interface{} holds them. */
function plain(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plain);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = plain(value[key]);
    return out;
  }
  return value;
}
