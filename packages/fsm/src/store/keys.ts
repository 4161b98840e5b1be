/** Key layout shared by every table: composite keys and the namespace a record without one lives in. */

export const DEFAULT_NAMESPACE = "default";

export const SEP = "\u0000";

/** Composite keys: the parts never contain NUL, so ordering by the string orders by the parts. */
export function joinKey(...parts: string[]): string {
  return parts.join(SEP);
}

/** The smallest string greater than every string that starts with `prefix`. */
export function prefixEnd(prefix: string): string {
  return `${prefix}\uffff`;
}
