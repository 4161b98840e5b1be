import type { HclObject, HclValue } from "./decode.js";
import { Source } from "./source.js";

/**
 * HCL1 reads a document whose first non-blank character is `{` as JSON (Consul relies on this: ACL rules and
 * `.hcl` files may be written in JSON). Returns undefined when the text is not in JSON form.
 */
export function parseJsonForm(text: string): HclObject | undefined {
  const start = /^[\uFEFF \t\r\n]*/.exec(text)![0].length;
  if (text[start] !== "{") return undefined;
  const source = new Source(text);
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const at = /at position (\d+)/.exec(reason);
    source.fail(at ? start + Number(at[1]) : start, `invalid JSON: ${reason.split("\n")[0]}`);
  }
  checkNoNull(value, source, start);
  return value as HclObject;
}

/**
 * HCL1 decodes a JSON object member whose value is null as absent, so such members are dropped; a null list
 * element has no HCL equivalent and is refused, which keeps the result an HclValue. Iterative: input may
 * nest deeply.
 */
function checkNoNull(value: unknown, source: Source, start: number): asserts value is HclValue {
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null) source.fail(start, "invalid JSON for HCL: null values are not supported in lists");
    if (typeof next !== "object") continue;
    if (Array.isArray(next)) {
      pending.push(...next);
      continue;
    }
    const members = next as Record<string, unknown>;
    for (const [key, child] of Object.entries(members)) {
      if (child === null) delete members[key];
      else pending.push(child);
    }
  }
}
