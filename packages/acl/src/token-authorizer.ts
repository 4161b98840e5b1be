import type { Access } from "./access.js";
import type { Authorizer, DefaultPolicy } from "./authorizer.js";
import type { AuthorizerCache } from "./cache.js";
import type { Resource } from "./compile.js";
import { type AclSecretLookups, resolveSecret } from "./resolve.js";

export interface TokenAuthorizerOptions {
  readonly cache: AuthorizerCache;
  readonly lookups: AclSecretLookups;
  /** The ACL tables' max modify index (tokens, policies, roles, namespaces) in the state being read. */
  readonly aclIndex: () => number;
  readonly datacenter: string;
  readonly defaultPolicy: DefaultPolicy;
  /** The secret used when a request carries no token (Consul: `anonymous`). */
  readonly anonymousSecret: string;
}

/**
 * Token secret in, decision out: the shape of the HTTP layer's Authorizer seam. Resolution goes through
 * the cache; an unknown or expired secret throws AclNotFoundError, which the HTTP layer answers with
 * 403 `ACL not found`.
 */
export class TokenAuthorizer {
  constructor(private readonly options: TokenAuthorizerOptions) {}

  /** The resolved authorizer for a secret (empty: the anonymous token). Throws AclNotFoundError. */
  forToken(secret: string): Authorizer {
    const o = this.options;
    const effective = secret === "" ? o.anonymousSecret : secret;
    return o.cache.authorizerFor(effective, o.aclIndex(), () =>
      resolveSecret(effective, o.lookups, {
        now: o.cache.now(),
        datacenter: o.datacenter,
        defaultPolicy: o.defaultPolicy,
        rules: o.cache.rules,
      }),
    );
  }

  authorize(token: string, ns: string, resource: Resource, name: string, access: Access): "allow" | "deny" {
    return this.forToken(token).authorize(ns, resource, name, access);
  }
}
