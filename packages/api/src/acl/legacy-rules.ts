import { AclRulesError, parseRules } from "@cairn/acl";
import { badRequest } from "../http/errors.js";

/** Resources whose legacy (ID-based API) rules match by prefix. */
const PREFIX_RESOURCES = "key|node|service|session|agent|event|query";
const HCL_BLOCK = new RegExp(`(^|[\\s{;])(${PREFIX_RESOURCES})(\\s+")`, "g");
const JSON_KEY = new RegExp(`"(${PREFIX_RESOURCES})"(\\s*:)`, "g");

/**
 * Rewrites an ID-based token's rules into today's syntax, as Consul's compatibility layer did: in legacy
 * rules `key "foo/"` was a prefix, so every labelled rule becomes its `_prefix` form. The token then
 * carries the result as an embedded policy. Rules that do not parse are a 400 naming the field.
 */
export function legacyRulesToModern(rules: string): string {
  if (rules.trim() === "") return "";
  try {
    parseRules(rules, { syntax: "legacy" });
  } catch (err) {
    if (err instanceof AclRulesError) throw badRequest(`Rules: ${err.message}`);
    throw err;
  }
  return rules.trimStart().startsWith("{")
    ? rules.replace(JSON_KEY, '"$1_prefix"$2')
    : rules.replace(HCL_BLOCK, "$1$2_prefix$3");
}
