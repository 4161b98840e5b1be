import type { JsonValue } from "@cairn/json";
import type { z } from "zod";
import { defOf } from "./zod-def.js";

/**
 * Go's encoding/json leaves its target untouched when it reads JSON null: a null body decodes to an empty
 * request, a null field to the field's zero value, as if it had not been sent. Go clients send such nulls
 * routinely (a nil map, slice or pointer without `omitempty`: `Meta`, `Tags`, `Checks`, `Weights`, the
 * unused members of a txn operation, autopilot's `LastContactThreshold`). These helpers let the body
 * decoder read them so before zod sees the body, once for every endpoint.
 */

/** Whether zod accepts undefined for `schema` (an optional or defaulted field): zod records it as `optin`. */
function takesAbsent(schema: z.ZodType): boolean {
  return (schema as unknown as { _zod: { optin?: string } })._zod.optin !== undefined;
}

const nullMeaning = new WeakMap<object, boolean>();

/**
 * Whether `schema` gives null a meaning of its own (`.nullable()`, `z.null()`, free-form values): such a
 * schema sees the null as sent, for example a txn KV `Value: null` that stores an empty value.
 */
function takesNull(schema: z.ZodType): boolean {
  const cached = nullMeaning.get(schema);
  if (cached !== undefined) return cached;
  const def = defOf(schema);
  let takes: boolean;
  switch (def.type) {
    case "nullable":
    case "null":
    case "any":
    case "unknown":
      takes = true;
      break;
    case "optional":
    case "default":
    case "prefault":
    case "readonly":
    case "nonoptional":
      takes = def.innerType !== undefined && takesNull(def.innerType);
      break;
    case "pipe":
      takes = def.in !== undefined && takesNull(def.in);
      break;
    case "lazy":
      takes = def.getter !== undefined && takesNull(def.getter());
      break;
    case "union":
      takes = (def.options ?? []).some(takesNull);
      break;
    default:
      takes = false;
  }
  nullMeaning.set(schema, takes);
  return takes;
}

/** A null member of this field reads as a field not sent: the field is optional and null means nothing else. */
export function nullIsAbsent(field: z.ZodType): boolean {
  return takesAbsent(field) && !takesNull(field);
}

/** What a JSON null body decodes as: an empty object (or list) where the schema wants one, else null. */
export function emptyBody(schema: z.ZodType): JsonValue {
  if (takesNull(schema)) return null;
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "default":
    case "prefault":
    case "readonly":
    case "nonoptional":
    case "catch":
      return def.innerType ? emptyBody(def.innerType) : null;
    case "pipe":
      return def.in ? emptyBody(def.in) : null;
    case "lazy":
      return def.getter ? emptyBody(def.getter()) : null;
    case "object":
    case "record":
      return {};
    case "array":
      return [];
    default:
      return null;
  }
}
