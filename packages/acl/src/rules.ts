import type { PolicyName } from "./access.js";

/** Resources whose rules carry a label (`key "foo" { ... }`); each has an exact and a `_prefix` form. */
export const LABELLED_RESOURCES = [
  "agent",
  "event",
  "identity",
  "key",
  "node",
  "query",
  "service",
  "session",
] as const;
export type LabelledResource = (typeof LABELLED_RESOURCES)[number];

/** Resources with one rule per policy and no label (`operator = "read"`). */
export const SINGLETON_RESOURCES = ["acl", "keyring", "mesh", "operator", "peering"] as const;
export type SingletonResource = (typeof SINGLETON_RESOURCES)[number];

/** One labelled rule: `key_prefix "foo/" { policy = "read" }` is `{resource: "key", name: "foo/", prefix: true}`. */
export interface LabelledRule {
  readonly resource: LabelledResource;
  readonly name: string;
  readonly prefix: boolean;
  readonly policy: PolicyName;
  /** Service and identity rules only: the policy on intentions with this service as destination. */
  readonly intentions?: PolicyName;
}

/** The rules of one policy body: the top level, or the inside of a namespace block. */
export interface PolicyRules {
  readonly singletons: Readonly<Partial<Record<SingletonResource, PolicyName>>>;
  readonly rules: readonly LabelledRule[];
  /** `namespace` / `namespace_prefix` blocks (top level only). */
  readonly namespaces: readonly NamespaceRules[];
}

/** `namespace "foo" { policy = "write" key_prefix "" { ... } }`. */
export interface NamespaceRules {
  readonly name: string;
  readonly prefix: boolean;
  /** Access to the namespace itself (namespace:read / namespace:write). */
  readonly policy?: PolicyName;
  readonly rules: PolicyRules;
}

export const EMPTY_RULES: PolicyRules = { singletons: {}, rules: [], namespaces: [] };
