import type { Access } from "./access.js";
import { DEFAULT_NAMESPACE, type Resource, type RuleAuthorizer } from "./compile.js";

/** The agent's `acl.default_policy`: what happens when no rule covers a request. */
export type DefaultPolicy = "allow" | "deny";

/**
 * The answer for one token: its own rules, then its namespace's default policies and roles, then the
 * agent's default policy (Consul's ChainedAuthorizer ending in a static authorizer). The first authorizer
 * that decides wins, so a directly linked rule that grants read and denies write stops a namespace
 * default that would grant write (spec 1's default-access rule).
 */
export class Authorizer {
  constructor(
    private readonly chain: readonly RuleAuthorizer[],
    private readonly defaultPolicy: DefaultPolicy,
  ) {}

  /** May the token do `access` on `resource` `name` in namespace `ns`? Singletons ignore `name`. */
  authorize(ns: string, resource: Resource, name: string, access: Access): "allow" | "deny" {
    const chain = this.chain;
    for (let i = 0; i < chain.length; i++) {
      const decision = chain[i]!.decide(ns, resource, name, access);
      if (decision !== "default") return decision;
    }
    // Consul's static allow-all authorizer still refuses ACL management (and snapshots, which need acl:write).
    return resource === "acl" ? "deny" : this.defaultPolicy;
  }

  allowed(ns: string, resource: Resource, name: string, access: Access): boolean {
    return this.authorize(ns, resource, name, access) === "allow";
  }

  /** May everything under `prefix` be deleted? (recursive KV delete) */
  keyWritePrefix(ns: string, prefix: string): "allow" | "deny" {
    for (const authz of this.chain) {
      const decision = authz.keyWritePrefix(ns, prefix);
      if (decision !== "default") return decision;
    }
    return this.defaultPolicy;
  }

  /** The ID-based API's `management` type: acl:write in the default namespace. */
  isManagement(): boolean {
    return this.allowed(DEFAULT_NAMESPACE, "acl", "", "write");
  }
}
