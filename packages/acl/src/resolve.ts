import { Authorizer, type DefaultPolicy } from "./authorizer.js";
import { CompiledRules, DEFAULT_NAMESPACE, type PolicySource } from "./compile.js";
import { AclNotFoundError, AclRulesError } from "./errors.js";
import {
  appliesIn,
  type NodeIdentity,
  nodeIdentityRules,
  type ServiceIdentity,
  serviceIdentityRules,
} from "./identities.js";
import { parseRules } from "./parse.js";
import type { PolicyRules } from "./rules.js";

/** A link to a policy or role, stored by ID. */
export interface AclLink {
  readonly ID: string;
  readonly Name?: string;
}

export interface AclTokenRecord {
  readonly AccessorID: string;
  readonly SecretID: string;
  readonly Namespace?: string;
  readonly Policies?: readonly AclLink[] | null;
  readonly Roles?: readonly AclLink[] | null;
  readonly ServiceIdentities?: readonly ServiceIdentity[] | null;
  readonly NodeIdentities?: readonly NodeIdentity[] | null;
  /** RFC 3339; absent or empty means the token never expires. */
  readonly ExpirationTime?: string | null;
}

export interface AclPolicyRecord {
  readonly ID: string;
  readonly Rules: string;
  /** Empty or absent: the policy applies in every datacenter. */
  readonly Datacenters?: readonly string[] | null;
  /**
   * Where the policy is stored: decides which namespace restrictions its rules obey. Its top-level rules
   * apply in the namespace of each token that links it.
   */
  readonly Namespace?: string;
  /** Identifies the policy's version: rules are parsed once per (ID, ModifyIndex). */
  readonly ModifyIndex: number;
}

export interface AclRoleRecord {
  readonly ID: string;
  readonly Policies?: readonly AclLink[] | null;
  readonly ServiceIdentities?: readonly ServiceIdentity[] | null;
  readonly NodeIdentities?: readonly NodeIdentity[] | null;
}

/** A namespace's `ACLs` field. */
export interface NamespaceAclDefaults {
  readonly PolicyDefaults?: readonly AclLink[] | null;
  readonly RoleDefaults?: readonly AclLink[] | null;
}

/** Reads of the ACL tables, injected so resolution stays pure. Missing records are `undefined`. */
export interface AclLookups {
  policy(id: string): AclPolicyRecord | undefined;
  role(id: string): AclRoleRecord | undefined;
  namespaceDefaults(namespace: string): NamespaceAclDefaults | undefined;
}

export interface AclSecretLookups extends AclLookups {
  tokenBySecret(secret: string): AclTokenRecord | undefined;
}

export interface ResolveContext {
  /** Milliseconds since the epoch. */
  readonly now: number;
  readonly datacenter: string;
  readonly defaultPolicy: DefaultPolicy;
  /** Share parsed policies and compiled policy sets between resolutions (AuthorizerCache.rules). */
  readonly rules?: RulesCache;
}

export interface ResolvedToken {
  readonly authorizer: Authorizer;
  /** When the token stops being valid (ms since the epoch), if it expires. */
  readonly expiresAt: number | undefined;
}

/**
 * Builds the Authorizer for a token: its policies, its roles' policies and identities, its own service
 * and node identities (links to records that no longer exist are skipped, as are policies and identities
 * restricted to other datacenters), then the default policies and roles of the token's namespace as a
 * separate, lower link of the chain (spec 1's default-access rule), then the agent's default policy.
 * An expired token is refused with AclNotFoundError("expired").
 */
export function resolveToken(token: AclTokenRecord, lookups: AclLookups, ctx: ResolveContext): ResolvedToken {
  const expiresAt = expirationOf(token);
  if (expiresAt !== undefined && ctx.now >= expiresAt) throw new AclNotFoundError("expired");
  const rules = ctx.rules ?? new RulesCache();
  const namespace = token.Namespace || DEFAULT_NAMESPACE;

  const direct = new SourceCollector(lookups, ctx.datacenter, namespace, rules);
  direct.policies(token.Policies);
  direct.roles(token.Roles);
  direct.serviceIdentities(token.ServiceIdentities);
  direct.nodeIdentities(token.NodeIdentities);
  const chain = [direct.compile()];

  const defaults = lookups.namespaceDefaults(namespace);
  if (defaults) {
    const fallback = new SourceCollector(lookups, ctx.datacenter, namespace, rules);
    fallback.policies(defaults.PolicyDefaults);
    fallback.roles(defaults.RoleDefaults);
    if (!fallback.empty) chain.push(fallback.compile());
  }
  return { authorizer: new Authorizer(chain, ctx.defaultPolicy), expiresAt };
}

/** resolveToken for a secret; an unknown secret is AclNotFoundError("unknown"). */
export function resolveSecret(secret: string, lookups: AclSecretLookups, ctx: ResolveContext): ResolvedToken {
  const token = lookups.tokenBySecret(secret);
  if (token === undefined) throw new AclNotFoundError("unknown");
  return resolveToken(token, lookups, ctx);
}

/** Go's zero time, which a record converted from Consul's shapes may carry for "no expiration". */
const GO_ZERO_TIME = Date.parse("0001-01-01T00:00:00Z");

function expirationOf(token: AclTokenRecord): number | undefined {
  if (!token.ExpirationTime) return undefined;
  const at = Date.parse(token.ExpirationTime);
  if (at === GO_ZERO_TIME) return undefined;
  // An unreadable expiration is treated as already passed rather than as "never".
  return Number.isNaN(at) ? 0 : at;
}

/** Gathers the policy sources of one link of the chain, each policy once. */
class SourceCollector {
  private readonly sources: PolicySource[] = [];
  private readonly keys: string[] = [];
  private readonly seenPolicies = new Set<string>();
  private readonly seenRoles = new Set<string>();

  constructor(
    private readonly lookups: AclLookups,
    private readonly datacenter: string,
    private readonly namespace: string,
    private readonly cache: RulesCache,
  ) {}

  get empty(): boolean {
    return this.sources.length === 0;
  }

  policies(links: readonly AclLink[] | null | undefined): void {
    for (const link of links ?? []) {
      if (this.seenPolicies.has(link.ID)) continue;
      this.seenPolicies.add(link.ID);
      const policy = this.lookups.policy(link.ID);
      if (policy === undefined || !appliesIn(policy.Datacenters, this.datacenter)) continue;
      const rules = this.cache.rulesOf(policy);
      if (rules === undefined) continue;
      this.add(`p:${policy.ID}@${policy.ModifyIndex}`, rules);
    }
  }

  roles(links: readonly AclLink[] | null | undefined): void {
    for (const link of links ?? []) {
      if (this.seenRoles.has(link.ID)) continue;
      this.seenRoles.add(link.ID);
      const role = this.lookups.role(link.ID);
      if (role === undefined) continue;
      this.policies(role.Policies);
      this.serviceIdentities(role.ServiceIdentities);
      this.nodeIdentities(role.NodeIdentities);
    }
  }

  serviceIdentities(identities: readonly ServiceIdentity[] | null | undefined): void {
    for (const si of identities ?? []) {
      if (!appliesIn(si.Datacenters, this.datacenter)) continue;
      this.add(`s:${si.ServiceName}`, serviceIdentityRules(si.ServiceName));
    }
  }

  nodeIdentities(identities: readonly NodeIdentity[] | null | undefined): void {
    for (const ni of identities ?? []) {
      if (ni.Datacenter !== this.datacenter) continue;
      this.add(`n:${ni.NodeName}`, nodeIdentityRules(ni.NodeName));
    }
  }

  compile(): CompiledRules {
    const key = `${this.namespace}\u0000${[...this.keys].sort().join("\u0000")}`;
    return this.cache.compiled(key, () => new CompiledRules(this.sources));
  }

  /**
   * Top-level rules apply in the token's namespace, whichever namespace the policy was written in: Consul
   * has namespace default policies live in the default namespace and grant access in the namespace of
   * each token they apply to.
   */
  private add(key: string, rules: PolicyRules): void {
    this.keys.push(key);
    this.sources.push({ namespace: this.namespace, rules });
  }
}

const MAX_COMPILED_SETS = 4096;

/**
 * Parsed rules per policy version (ID and ModifyIndex) and compiled rule sets per set of policy versions,
 * so tokens sharing policies share one compiled structure and a policy is parsed once per change.
 */
export class RulesCache {
  private readonly parsed = new Map<
    string,
    { readonly modifyIndex: number; readonly rules: PolicyRules | undefined }
  >();
  private readonly sets = new Map<string, CompiledRules>();

  /**
   * The parsed rules of a stored policy. Rules are validated when a policy is written; a stored policy that
   * no longer parses grants nothing rather than failing every request of its tokens.
   */
  rulesOf(policy: AclPolicyRecord): PolicyRules | undefined {
    const hit = this.parsed.get(policy.ID);
    if (hit !== undefined && hit.modifyIndex === policy.ModifyIndex) return hit.rules;
    let rules: PolicyRules | undefined;
    try {
      rules = parseRules(policy.Rules, { namespace: policy.Namespace || DEFAULT_NAMESPACE }).rules;
    } catch (err) {
      if (!(err instanceof AclRulesError)) throw err;
    }
    this.parsed.set(policy.ID, { modifyIndex: policy.ModifyIndex, rules });
    return rules;
  }

  compiled(key: string, build: () => CompiledRules): CompiledRules {
    let set = this.sets.get(key);
    if (set === undefined) {
      if (this.sets.size >= MAX_COMPILED_SETS) this.sets.clear();
      set = build();
      this.sets.set(key, set);
    }
    return set;
  }
}
