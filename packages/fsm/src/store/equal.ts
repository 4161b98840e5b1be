const IGNORED = new Set(["CreateIndex", "ModifyIndex"]);

/** Structural equality of two stored records, ignoring their indexes: an identical re-registration is a no-op. */
export function sameRecord(a: unknown, b: unknown): boolean {
  return deepEqual(a, b, true);
}

function deepEqual(a: unknown, b: unknown, top: boolean): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => !(top && IGNORED.has(k)));
  const kb = Object.keys(b).filter((k) => !(top && IGNORED.has(k)));
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && deepEqual(ra[k], rb[k], false));
}
