import { DEFAULT_NAMESPACE } from "@cairn/fsm";
import type { MemberFilter } from "@cairn/json";

/**
 * The one rule for a record's namespace and partition in every response. Consul embeds them in its records
 * as EnterpriseMeta: an empty struct in the open-source edition (so its records have no such fields) and
 * `Namespace`/`Partition` with `json:",omitempty"` in Enterprise. Cairn answers as the open-source edition
 * in the default namespace and as Enterprise elsewhere: a `Namespace` of "default" (and a default or empty
 * `Partition`) is left out, any other is written.
 *
 * Every JSON response goes through `scopeFilter` (http/respond.ts); the hot paths that build JSON
 * themselves (catalog shapes, KV entries) ask `scopedNamespace` for the member's value instead.
 */
export function isDefaultScope(key: string, value: unknown): boolean {
  if (key === "Namespace") return value === DEFAULT_NAMESPACE;
  if (key === "Partition") return value === "default" || value === "";
  return false;
}

/** A record's Namespace member: the namespace, or undefined (left out by every JSON writer) for the default. */
export function scopedNamespace(ns: string): string | undefined {
  return isDefaultScope("Namespace", ns) ? undefined : ns;
}

/**
 * Members whose values are the user's free-form maps (their keys are not field names, so a user's
 * `Meta: {"Namespace": "default"}` stays as written).
 */
const FREE_FORM: ReadonlySet<string> = new Set([
  "Meta",
  "NodeMeta",
  "ServiceMeta",
  "TaggedAddresses",
  "ServiceTaggedAddresses",
  "Config",
  "Header",
  "Arguments",
  "ClaimMappings",
  "ListClaimMappings",
]);

/** The rule as a member filter for the JSON writer. */
export const scopeFilter: MemberFilter = (key, value) =>
  FREE_FORM.has(key) ? "verbatim" : isDefaultScope(key, value) ? "omit" : "walk";
