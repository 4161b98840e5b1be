import { type ApplyError, applyError } from "../store/errors.js";
import { joinKey, prefixEnd, SEP } from "../store/keys.js";
import type { Tables } from "../store/tables.js";
import type { Tx } from "../store/tx.js";
import { GLOBAL_MANAGEMENT_POLICY_ID } from "./commands.js";
import {
  type AclLinkRef,
  type AclPolicy,
  type AclPolicySpec,
  type AclRole,
  type AclRoleSpec,
  type AclToken,
  type AclTokenSpec,
  policyHash,
  roleHash,
  tokenHash,
} from "./records.js";
import { AclChannels, BOOTSTRAP_KEY } from "./tables.js";

/**
 * ACL tokens, policies and roles. The API validates bodies (rules parse, identities, TTLs, immutable
 * fields) and resolves links by name to IDs; here they meet the checks that depend on the state, inside
 * one apply so a refusal stores nothing: unique IDs, secrets and names, links to records that exist, the
 * built-in policy's rules unchanged, bootstrap once. Time (CreateTime) travels in the command.
 */

const nameKey = (ns: string, name: string) => joinKey(ns, name.toLowerCase());

function linkKeys(t: AclToken): string[] {
  const keys = [
    ...t.Policies.map((l) => joinKey("p", l.ID, t.AccessorID)),
    ...t.Roles.map((l) => joinKey("r", l.ID, t.AccessorID)),
  ];
  if (t.AuthMethod !== "") {
    keys.push(joinKey("m", t.AuthMethodNamespace || t.Namespace, t.AuthMethod, t.AccessorID));
  }
  return keys;
}

/** Secondary indexes of one token: its secret, its links, its expiry. */
export function indexToken(t: Tables, token: AclToken): void {
  t.aclTokenSecrets.set(token.SecretID, token.AccessorID);
  for (const k of linkKeys(token)) t.aclTokenLinks.set(k, true);
  if (token.ExpirationTime !== "")
    t.aclTokenExpiry.set(joinKey(token.ExpirationTime, token.AccessorID), true);
}

function unindexToken(t: Tables, token: AclToken): void {
  t.aclTokenSecrets.delete(token.SecretID);
  for (const k of linkKeys(token)) t.aclTokenLinks.delete(k);
  if (token.ExpirationTime !== "") t.aclTokenExpiry.delete(joinKey(token.ExpirationTime, token.AccessorID));
}

export function indexPolicy(t: Tables, p: AclPolicy): void {
  t.aclPolicyNames.set(nameKey(p.Namespace, p.Name), p.ID);
}

export function indexRole(t: Tables, r: AclRole): void {
  t.aclRoleNames.set(nameKey(r.Namespace, r.Name), r.ID);
}

/** Accessors of the tokens linking a policy ("p"), a role ("r"), or made by an auth method ("m", ns, name). */
export function tokensLinking(t: Tables, ...prefixParts: string[]): string[] {
  const prefix = joinKey(...prefixParts) + SEP;
  const out: string[] = [];
  t.aclTokenLinks.forRange(prefix, prefixEnd(prefix), false, (k) => {
    out.push(k.slice(prefix.length));
  });
  return out;
}

function changed(tx: Tx, table: "aclTokens" | "aclPolicies" | "aclRoles"): void {
  tx.tables.indexes[table] = tx.index;
  tx.touch(
    table === "aclTokens"
      ? AclChannels.tokens
      : table === "aclPolicies"
        ? AclChannels.policies
        : AclChannels.roles,
  );
}

function missingLinks(t: Tables, policies: readonly AclLinkRef[], roles: readonly AclLinkRef[]) {
  for (const l of policies) if (!t.aclPolicies.has(l.ID)) return `No such ACL policy with ID "${l.ID}"`;
  for (const l of roles) if (!t.aclRoles.has(l.ID)) return `No such ACL role with ID "${l.ID}"`;
  return undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function putToken(
  tx: Tx,
  op: "create" | "update",
  { ExpirationTTL, ...given }: AclTokenSpec,
  now: number,
): true | ApplyError {
  const t = tx.tables;
  if (ExpirationTTL !== undefined && given.ExpirationTime !== "") {
    return applyError("ExpirationTTL and ExpirationTime cannot both be set");
  }
  const spec: AclTokenSpec =
    ExpirationTTL === undefined ? given : { ...given, ExpirationTime: iso(now + ExpirationTTL) };
  if (spec.AccessorID === "" || spec.SecretID === "")
    return applyError("Missing token AccessorID or SecretID");
  const existing = t.aclTokens.get(spec.AccessorID);
  if (op === "create" && existing) return applyError(`Invalid Token: AccessorID is already in use`);
  if (op === "update" && !existing) {
    return applyError(`Cannot find token ${JSON.stringify(spec.AccessorID)}`, "not-found");
  }
  const bySecret = t.aclTokenSecrets.get(spec.SecretID);
  if (bySecret !== undefined && bySecret !== spec.AccessorID) {
    return applyError("Invalid Token: SecretID is already in use");
  }
  if (existing && existing.SecretID !== spec.SecretID) return applyError("Cannot change a token's SecretID");
  const missing = missingLinks(t, spec.Policies, spec.Roles);
  if (missing) return applyError(missing);
  const stored: AclToken = {
    ...spec,
    CreateTime: existing?.CreateTime ?? iso(now),
    Hash: tokenHash(spec),
    CreateIndex: existing?.CreateIndex ?? tx.index,
    ModifyIndex: tx.index,
  };
  if (existing) unindexToken(t, existing);
  t.aclTokens.set(stored.AccessorID, stored);
  indexToken(t, stored);
  changed(tx, "aclTokens");
  return true;
}

export function deleteToken(tx: Tx, accessor: string): boolean {
  const t = tx.tables;
  const existing = t.aclTokens.get(accessor);
  if (!existing) return false;
  unindexToken(t, existing);
  t.aclTokens.delete(accessor);
  changed(tx, "aclTokens");
  return true;
}

export function putPolicy(tx: Tx, op: "create" | "update", spec: AclPolicySpec): true | ApplyError {
  const t = tx.tables;
  if (spec.ID === "" || spec.Name === "") return applyError("Missing policy ID or Name");
  const existing = t.aclPolicies.get(spec.ID);
  if (op === "create" && existing) return applyError("Invalid Policy: ID is already in use");
  if (op === "update" && !existing)
    return applyError(`Cannot find policy ${JSON.stringify(spec.ID)}`, "not-found");
  const owner = t.aclPolicyNames.get(nameKey(spec.Namespace, spec.Name));
  if (owner !== undefined && owner !== spec.ID) {
    return applyError(`Invalid Policy: A Policy with Name ${JSON.stringify(spec.Name)} already exists`);
  }
  if (existing && spec.ID === GLOBAL_MANAGEMENT_POLICY_ID) {
    if (spec.Rules !== existing.Rules)
      return applyError("Changing the Rules for the builtin global-management policy is not permitted");
    if (spec.Datacenters.length > 0)
      return applyError("Changing the Datacenters of the builtin global-management policy is not permitted");
  }
  const stored: AclPolicy = {
    ...spec,
    Hash: policyHash(spec),
    CreateIndex: existing?.CreateIndex ?? tx.index,
    ModifyIndex: tx.index,
  };
  if (existing) t.aclPolicyNames.delete(nameKey(existing.Namespace, existing.Name));
  t.aclPolicies.set(stored.ID, stored);
  indexPolicy(t, stored);
  changed(tx, "aclPolicies");
  return true;
}

export function deletePolicy(tx: Tx, id: string): boolean {
  const t = tx.tables;
  const existing = t.aclPolicies.get(id);
  if (!existing) return false;
  t.aclPolicyNames.delete(nameKey(existing.Namespace, existing.Name));
  t.aclPolicies.delete(id);
  changed(tx, "aclPolicies");
  return true;
}

export function putRole(tx: Tx, op: "create" | "update", spec: AclRoleSpec): true | ApplyError {
  const t = tx.tables;
  if (spec.ID === "" || spec.Name === "") return applyError("Missing role ID or Name");
  const existing = t.aclRoles.get(spec.ID);
  if (op === "create" && existing) return applyError("Invalid Role: ID is already in use");
  if (op === "update" && !existing)
    return applyError(`Cannot find role ${JSON.stringify(spec.ID)}`, "not-found");
  const owner = t.aclRoleNames.get(nameKey(spec.Namespace, spec.Name));
  if (owner !== undefined && owner !== spec.ID) {
    return applyError(`Invalid Role: A Role with Name ${JSON.stringify(spec.Name)} already exists`);
  }
  const missing = missingLinks(t, spec.Policies, []);
  if (missing) return applyError(missing);
  const stored: AclRole = {
    ...spec,
    Hash: roleHash(spec),
    CreateIndex: existing?.CreateIndex ?? tx.index,
    ModifyIndex: tx.index,
  };
  if (existing) t.aclRoleNames.delete(nameKey(existing.Namespace, existing.Name));
  t.aclRoles.set(stored.ID, stored);
  indexRole(t, stored);
  changed(tx, "aclRoles");
  return true;
}

export function deleteRole(tx: Tx, id: string): boolean {
  const t = tx.tables;
  const existing = t.aclRoles.get(id);
  if (!existing) return false;
  t.aclRoleNames.delete(nameKey(existing.Namespace, existing.Name));
  t.aclRoles.delete(id);
  changed(tx, "aclRoles");
  return true;
}

export function ensureBuiltins(
  tx: Tx,
  now: number,
  policy: AclPolicySpec,
  anonymous?: AclTokenSpec,
): true | ApplyError {
  const t = tx.tables;
  if (!t.aclPolicies.has(policy.ID)) {
    const done = putPolicy(tx, "create", policy);
    if (done !== true) return done;
  }
  if (anonymous && !t.aclTokens.has(anonymous.AccessorID)) return putToken(tx, "create", anonymous, now);
  return true;
}

/** The index of the bootstrap, if the cluster was bootstrapped. */
export function bootstrapIndex(t: Tables): number | undefined {
  return t.aclMeta.get(BOOTSTRAP_KEY);
}

export function bootstrap(tx: Tx, token: AclTokenSpec, now: number): true | ApplyError {
  const done = putToken(tx, "create", token, now);
  if (done !== true) return done;
  tx.tables.aclMeta.set(BOOTSTRAP_KEY, tx.index);
  return true;
}
