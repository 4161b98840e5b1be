import {
  type AclPolicyRecord,
  type AclRoleRecord,
  type AclSecretLookups,
  type AclTokenRecord,
  type NamespaceAclDefaults,
  type ResolveContext,
  type ResolvedToken,
  resolveSecret,
} from "./resolve.js";

/**
 * Every ACL record one token's resolution reads: the token, the policies and roles it reaches (directly,
 * through its roles, or as its namespace's defaults) and its namespace's defaults. Plain data, so a server
 * can hand it to a client agent, which resolves the token from it alone (as Consul clients fetch a token
 * and its policies and roles from a server and authorize locally).
 */
export interface AclTokenRecords {
  readonly token: AclTokenRecord;
  readonly policies: readonly AclPolicyRecord[];
  readonly roles: readonly AclRoleRecord[];
  /** Namespace name -> its `ACLs` field, for the namespaces whose defaults the resolution read. */
  readonly namespaces: Readonly<Record<string, NamespaceAclDefaults>>;
}

/**
 * Resolves `secret` over `lookups` and keeps the records the resolution read. Throws AclNotFoundError for
 * an unknown or expired token, as resolveSecret.
 */
export function recordTokenResolution(
  secret: string,
  lookups: AclSecretLookups,
  ctx: ResolveContext,
): { readonly resolved: ResolvedToken; readonly records: AclTokenRecords } {
  let token: AclTokenRecord | undefined;
  const policies = new Map<string, AclPolicyRecord>();
  const roles = new Map<string, AclRoleRecord>();
  const namespaces: Record<string, NamespaceAclDefaults> = {};
  const recording: AclSecretLookups = {
    tokenBySecret: (s) => {
      token = lookups.tokenBySecret(s);
      return token;
    },
    policy: (id) => keep(policies, id, lookups.policy(id)),
    role: (id) => keep(roles, id, lookups.role(id)),
    namespaceDefaults: (ns) => {
      const defaults = lookups.namespaceDefaults(ns);
      if (defaults !== undefined) namespaces[ns] = defaults;
      return defaults;
    },
  };
  const resolved = resolveSecret(secret, recording, ctx);
  // resolveSecret throws before this point when the token is missing.
  return {
    resolved,
    records: { token: token!, policies: [...policies.values()], roles: [...roles.values()], namespaces },
  };
}

/** Lookups over recorded records: resolving the recorded secret with them gives the same authorizer. */
export function recordedLookups(records: AclTokenRecords): AclSecretLookups {
  const policies = new Map(records.policies.map((p) => [p.ID, p]));
  const roles = new Map(records.roles.map((r) => [r.ID, r]));
  return {
    tokenBySecret: (secret) => (secret === records.token.SecretID ? records.token : undefined),
    policy: (id) => policies.get(id),
    role: (id) => roles.get(id),
    namespaceDefaults: (ns) => (Object.hasOwn(records.namespaces, ns) ? records.namespaces[ns] : undefined),
  };
}

function keep<T>(into: Map<string, T>, id: string, record: T | undefined): T | undefined {
  if (record !== undefined) into.set(id, record);
  return record;
}
