/**
 * JSON writer that emits bigint as plain digits, so uint64 fields (Flags, indexes) above 2^53 reach Go
 * clients exactly. Otherwise it follows JSON.stringify: undefined object members are left out, undefined
 * array items become null, non-finite numbers become null.
 */
export function writeJson(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "bigint":
      return value.toString();
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      if (Array.isArray(value)) return writeArray(value);
      if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString("base64"));
      return writeObject(value as Record<string, unknown>);
    default:
      return "null";
  }
}

function writeArray(items: readonly unknown[]): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ",";
    out += writeJson(items[i]);
  }
  return `${out}]`;
}

function writeObject(obj: Record<string, unknown>): string {
  let out = "{";
  let first = true;
  for (const key of Object.keys(obj)) {
    const member = obj[key];
    if (member === undefined || typeof member === "function") continue;
    if (!first) out += ",";
    first = false;
    out += `${JSON.stringify(key)}:${writeJson(member)}`;
  }
  return `${out}}`;
}
