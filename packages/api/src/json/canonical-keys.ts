import type { JsonValue } from "@cairn/json";
import type { z } from "zod";
import { emptyBody, nullIsAbsent } from "./nulls.js";
import { defOf } from "./zod-def.js";

/**
 * A parsed request body as Go's encoding/json would fill a struct from it, ready for zod: field names
 * matched as Go matches them (canonicalizeKeys) and JSON null read as Go reads it (nulls.ts): a null body is
 * an empty one, a null member of an optional field is a field not sent. Every JSON body decoder uses this.
 */
export function goBody(schema: z.ZodType, value: JsonValue): JsonValue {
  return canonicalizeKeys(schema, value === null ? emptyBody(schema) : value);
}

/**
 * Go's encoding/json (and mapstructure) match body fields to struct fields case-insensitively, so Consul
 * clients may send `ttl`, `TTL` or `Ttl`. This renames keys of a decoded body to the field names of a zod
 * schema before validation: an exact match wins, otherwise the case-insensitive one; later duplicates
 * overwrite earlier ones, as in Go. Keys of free-form maps (records) are left exactly as sent. Null members
 * of optional fields are dropped on the way (see goBody).
 */
export function canonicalizeKeys(schema: z.ZodType, value: JsonValue): JsonValue {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "catch":
    case "readonly":
    case "nonoptional":
      return def.innerType ? canonicalizeKeys(def.innerType, value) : value;
    case "pipe":
      return def.in ? canonicalizeKeys(def.in, value) : value;
    case "lazy":
      return def.getter ? canonicalizeKeys(def.getter(), value) : value;
    case "array":
      if (!Array.isArray(value) || def.element === undefined) return value;
      return value.map((item) => canonicalizeKeys(def.element as z.ZodType, item));
    case "record":
      if (!isPlainObject(value) || def.valueType === undefined) return value;
      return mapValues(value, def.valueType);
    case "object":
      return isPlainObject(value) && def.shape ? canonicalizeObject(def.shape, value) : value;
    case "union":
      // The first object member is the canonical spelling; unions here are scalar alternatives
      // (number or string) in all but rare cases, where leaving the value alone is correct.
      for (const option of def.options ?? []) {
        if (defOf(option).type === "object") {
          return canonicalizeKeys(option, value);
        }
      }
      return value;
    default:
      return value;
  }
}

type JsonObject = { [key: string]: JsonValue };

function isPlainObject(value: JsonValue): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const foldedFieldsCache = new WeakMap<object, Map<string, string>>();

function foldedFields(shape: Record<string, z.ZodType>): Map<string, string> {
  let folded = foldedFieldsCache.get(shape);
  if (folded === undefined) {
    folded = new Map();
    for (const field of Object.keys(shape)) folded.set(field.toLowerCase(), field);
    foldedFieldsCache.set(shape, folded);
  }
  return folded;
}

function canonicalizeObject(shape: Record<string, z.ZodType>, value: JsonObject): JsonObject {
  const folded = foldedFields(shape);
  const out: JsonObject = Object.create(null);
  for (const key of Object.keys(value)) {
    const field = Object.hasOwn(shape, key) ? key : folded.get(key.toLowerCase());
    const member = value[key] as JsonValue;
    if (field !== undefined && member === null && nullIsAbsent(shape[field] as z.ZodType)) continue;
    if (field === undefined) {
      // Unknown fields are ignored by Go's decoder; keep them so a strict schema can still see them.
      if (!(key in out)) out[key] = member;
      continue;
    }
    out[field] = canonicalizeKeys(shape[field] as z.ZodType, member);
  }
  return out;
}

function mapValues(value: JsonObject, valueType: z.ZodType): JsonObject {
  const out: JsonObject = Object.create(null);
  for (const key of Object.keys(value)) out[key] = canonicalizeKeys(valueType, value[key] as JsonValue);
  return out;
}
