// JSON that keeps uint64 exact (KV Flags, indexes): the shared reader parses integers beyond 2^53 as bigint,
// and bigints print as plain numbers. JSON.parse would round them.
import type { JsonValue } from "@cairn/json";

export { JsonSyntaxError, type JsonValue, readJson as parseJson } from "@cairn/json";

/**
 * Go's json.MarshalIndent(v, "", indent): keys in the given order, `<`, `>`, `&`, U+2028 and U+2029
 * escaped as Go does by default, so `cairn kv export` prints what `consul kv export` prints.
 */
export function stringifyGo(value: JsonValue, indent = "\t", depth = 0): string {
  if (value === null) return "null";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return quoteGo(value);
  const pad = indent.repeat(depth + 1);
  const end = indent.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => pad + stringifyGo(v, indent, depth + 1)).join(",\n")}\n${end}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${pad}${quoteGo(k)}: ${stringifyGo(v, indent, depth + 1)}`).join(",\n")}\n${end}}`;
}

const GO_HTML_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

function quoteGo(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => GO_HTML_ESCAPES[c]!);
}

/** Field lookup as Go's decoder does it: an exact match first, then a case-insensitive one. */
export function field(obj: { [key: string]: JsonValue }, name: string): JsonValue | undefined {
  if (Object.hasOwn(obj, name)) return obj[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(obj)) if (key.toLowerCase() === lower) return obj[key];
  return undefined;
}

export function isObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A uint64 field (Flags, indexes) as an exact bigint; 0 when absent or not an unsigned integer. */
export function asUint64(v: JsonValue | undefined): bigint {
  if (typeof v === "bigint") return v >= 0n ? v : 0n;
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return BigInt(v);
  return 0n;
}

export function asString(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}
