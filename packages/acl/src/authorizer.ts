import type { Access, Decision } from "./access.js";
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
    return this.finish(
      "key",
      this.first((authz) => authz.keyWritePrefix(ns, prefix)),
    );
  }

  /** Consul's ServiceReadAll / NodeReadAll: `access` on every name of `resource`. */
  authorizeAll(ns: string, resource: Resource, access: Access): "allow" | "deny" {
    return this.finish(
      resource,
      this.first((authz) => authz.decideAll(ns, resource, access)),
    );
  }

  /** Consul's ServiceWriteAny: `access` on at least one name of `resource`. */
  authorizeAny(ns: string, resource: Resource, access: Access): "allow" | "deny" {
    return this.finish(
      resource,
      this.first((authz) => authz.decideAny(ns, resource, access)),
    );
  }

  /**
   * Spec 1's namespace:*:read: namespace read, or any access granted inside the namespace (read, list or
   * write on anything), lets the token see the namespace.
   */
  mayReadNamespace(ns: string): boolean {
    const decision = this.first((authz) => authz.decide(DEFAULT_NAMESPACE, "namespace", ns, "read"));
    if (decision === "allow" || this.chain.some((authz) => authz.grantsAnythingIn(ns))) return true;
    return decision === "default" && this.defaultPolicy === "allow";
  }

  private first(ask: (authz: RuleAuthorizer) => Decision): Decision {
    for (const authz of this.chain) {
      const decision = ask(authz);
      if (decision !== "default") return decision;
    }
    return "default";
  }

  private finish(resource: Resource, decision: Decision): "allow" | "deny" {
    if (decision !== "default") return decision;
    return resource === "acl" ? "deny" : this.defaultPolicy;
  }

  /** The ID-based API's `management` type: acl:write in the default namespace. */
  isManagement(): boolean {
    return this.allowed(DEFAULT_NAMESPACE, "acl", "", "write");
  }
}
