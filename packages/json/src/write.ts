/**
 * What to do with one object member: write it ("walk", its value under the same rule), leave it out
 * ("omit"), or write its value with no rule at all ("verbatim", for free-form maps whose keys are the user's).
 */
export type MemberRule = "walk" | "omit" | "verbatim";

/** Decides each object member's fate by its key and value. */
export type MemberFilter = (key: string, value: unknown) => MemberRule;

/**
 * JSON writer that emits bigint as plain digits, so uint64 fields (Flags, indexes) above 2^53 reach Go
 * clients exactly. Otherwise it follows JSON.stringify: undefined object members are left out, undefined
 * array items become null, non-finite numbers become null. An optional member filter drops or shields
 * object members on the way.
 */
export function writeJson(value: unknown, members?: MemberFilter): string {
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
      if (Array.isArray(value)) return writeArray(value, members);
      if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString("base64"));
      return writeObject(value as Record<string, unknown>, members);
    default:
      return "null";
  }
}

function writeArray(items: readonly unknown[], members: MemberFilter | undefined): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ",";
    out += writeJson(items[i], members);
  }
  return `${out}]`;
}

function writeObject(obj: Record<string, unknown>, members: MemberFilter | undefined): string {
  let out = "{";
  let first = true;
  for (const key of Object.keys(obj)) {
    const member = obj[key];
    if (member === undefined || typeof member === "function") continue;
    const rule = members === undefined ? "walk" : members(key, member);
    if (rule === "omit") continue;
    if (!first) out += ",";
    first = false;
    out += `${JSON.stringify(key)}:${writeJson(member, rule === "walk" ? members : undefined)}`;
  }
  return `${out}}`;
}
