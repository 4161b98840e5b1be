import type { Authorizer } from "./authorizer.js";
import { AclNotFoundError } from "./errors.js";
import { type ResolvedToken, RulesCache } from "./resolve.js";

export interface AuthorizerCacheOptions {
  /** Milliseconds since the epoch; injected so tests and simulations control time. */
  readonly clock: () => number;
  /** Most token secrets kept (oldest dropped first). Default 10,000. */
  readonly maxEntries?: number;
}

interface Entry {
  readonly authorizer: Authorizer;
  readonly expiresAt: number | undefined;
}

/**
 * Resolved authorizers per token secret, valid while the ACL tables' max modify index is unchanged
 * (tokens, policies, roles and namespaces: anything that can change a resolution). A token that expires
 * while cached is refused from then on without a new resolution.
 */
export class AuthorizerCache {
  /** Parsed policies and compiled policy sets, kept across index changes (they are keyed by version). */
  readonly rules = new RulesCache();
  private readonly entries = new Map<string, Entry>();
  private index = Number.NaN;
  private readonly maxEntries: number;

  constructor(private readonly options: AuthorizerCacheOptions) {
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /**
   * The authorizer for `secret` at ACL index `aclIndex`, resolving with `resolve` on a miss. Errors from
   * `resolve` (AclNotFoundError) propagate and are not cached.
   */
  authorizerFor(secret: string, aclIndex: number, resolve: () => ResolvedToken): Authorizer {
    if (aclIndex !== this.index) {
      this.entries.clear();
      this.index = aclIndex;
    }
    const hit = this.entries.get(secret);
    if (hit !== undefined) {
      if (hit.expiresAt === undefined || this.options.clock() < hit.expiresAt) return hit.authorizer;
      this.entries.delete(secret);
      throw new AclNotFoundError("expired");
    }
    const resolved = resolve();
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(secret, { authorizer: resolved.authorizer, expiresAt: resolved.expiresAt });
    return resolved.authorizer;
  }

  /** The injected clock's current time, for resolutions that go with this cache. */
  now(): number {
    return this.options.clock();
  }

  get size(): number {
    return this.entries.size;
  }
}
