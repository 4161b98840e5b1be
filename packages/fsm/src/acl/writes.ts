import { int, list, obj, optInt, optObj, type Raw, str, strItem } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { type ApplyError, applyError } from "../commands/results.js";
import { COMMAND_VERSION } from "../commands/types.js";
import { joinKey, prefixEnd, SEP, type Tables } from "../state/tables.js";
import type { Tx } from "../state/tx.js";
import {
  type AclLinkRef,
  type AclPolicy,
  type AclPolicySpec,
  type AclRole,
  type AclRoleSpec,
  type AclToken,
  type AclTokenSpec,
  decodePolicySpec,
  decodeRoleSpec,
  decodeTokenSpec,
  policyHash,
  roleHash,
  tokenHash,
} from "./acl-records.js";

/**
 * ACL tokens, policies and roles. The API validates bodies (rules parse, identities, TTLs, immutable
 * fields) and resolves links by name to IDs; here they meet the checks that depend on the state, inside
 * one apply so a refusal stores nothing: unique IDs, secrets and names, links to records that exist, the
 * built-in policy's rules unchanged, bootstrap once. Time (CreateTime) travels in the command.
 */

const v = COMMAND_VERSION;

/** Consul's built-in IDs. */
export const GLOBAL_MANAGEMENT_POLICY_ID = "00000000-0000-0000-0000-000000000001";
export const ANONYMOUS_TOKEN_ACCESSOR = "00000000-0000-0000-0000-000000000002";
export const ANONYMOUS_TOKEN_SECRET = "anonymous";

export interface AclTokenSetCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "acl.token.set";
  readonly op: "create" | "update";
  readonly token: AclTokenSpec;
  /** Leader's clock (ms since the epoch): CreateTime of a new token. */
  readonly now: number;
}

/** Deletes tokens by accessor (one from the API; many from the leader's expiry reaper). */
export interface AclTokenDeleteCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "acl.token.delete";
  readonly accessors: readonly string[];
}

export interface AclPolicySetCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "acl.policy.set";
  readonly op: "create" | "update";
  readonly policy: AclPolicySpec;
}

export interface AclPolicyDeleteCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "acl.policy.delete";
  readonly id: string;
}

export interface AclRoleSetCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "acl.role.set";
  readonly op: "create" | "update";
  readonly role: AclRoleSpec;
}

export interface AclRoleDeleteCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "acl.role.delete";
  readonly id: string;
}

/** PUT /acl/bootstrap: the first management token; refused once the cluster is bootstrapped. */
export interface AclBootstrapCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "acl.bootstrap";
  readonly token: AclTokenSpec;
  /** The built-in global-management policy, created if missing. */
  readonly policy: AclPolicySpec;
  readonly now: number;
  /**
   * Consul's bootstrap reset: the index an operator wrote to `acl-bootstrap-reset`. It allows one more
   * bootstrap when it equals the current reset index (the index of the last bootstrap).
   */
  readonly resetIndex?: number;
}

/**
 * Issued by a leader with ACLs on: creates the built-in global-management policy and anonymous token if
 * missing, and the `initial_management` token (which bootstraps the cluster) if configured and absent.
 */
export interface AclInitCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "acl.init";
  readonly policy: AclPolicySpec;
  readonly anonymous: AclTokenSpec;
  readonly initialManagement?: AclTokenSpec;
  readonly now: number;
}

export type AclCommand =
  | AclTokenSetCommand
  | AclTokenDeleteCommand
  | AclPolicySetCommand
  | AclPolicyDeleteCommand
  | AclRoleSetCommand
  | AclRoleDeleteCommand
  | AclBootstrapCommand
  | AclInitCommand;

/** Blocking-query channels. */
export const AclChannels = {
  tokens: "acl-tokens",
  policies: "acl-policies",
  roles: "acl-roles",
} as const;

/** The aclMeta row holding the bootstrap index. */
export const BOOTSTRAP_KEY = "bootstrap";

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
    return applyError(`Cannot find token ${JSON.stringify(spec.AccessorID)}`, 404);
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

function putPolicy(tx: Tx, op: "create" | "update", spec: AclPolicySpec): true | ApplyError {
  const t = tx.tables;
  if (spec.ID === "" || spec.Name === "") return applyError("Missing policy ID or Name");
  const existing = t.aclPolicies.get(spec.ID);
  if (op === "create" && existing) return applyError("Invalid Policy: ID is already in use");
  if (op === "update" && !existing) return applyError(`Cannot find policy ${JSON.stringify(spec.ID)}`, 404);
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

function putRole(tx: Tx, op: "create" | "update", spec: AclRoleSpec): true | ApplyError {
  const t = tx.tables;
  if (spec.ID === "" || spec.Name === "") return applyError("Missing role ID or Name");
  const existing = t.aclRoles.get(spec.ID);
  if (op === "create" && existing) return applyError("Invalid Role: ID is already in use");
  if (op === "update" && !existing) return applyError(`Cannot find role ${JSON.stringify(spec.ID)}`, 404);
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

function ensureBuiltins(
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

function bootstrap(tx: Tx, token: AclTokenSpec, now: number): true | ApplyError {
  const done = putToken(tx, "create", token, now);
  if (done !== true) return done;
  tx.tables.aclMeta.set(BOOTSTRAP_KEY, tx.index);
  return true;
}

const optional = <K extends string, T>(key: K, value: T | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, T>>;

const decodeOp = (r: Raw) => (str(r, "op") === "update" ? "update" : "create");

export const aclHandlers: HandlerMap<AclCommand["type"]> = {
  "acl.token.set": {
    atomic: true,
    decode: (r) => ({
      v,
      type: "acl.token.set",
      op: decodeOp(r),
      token: decodeTokenSpec(obj(r, "token")),
      now: int(r, "now"),
    }),
    apply: (tx, c) => putToken(tx, c.op, c.token, c.now),
  },
  "acl.token.delete": {
    decode: (r) => ({ v, type: "acl.token.delete", accessors: list(r, "accessors", strItem) }),
    apply(tx, c) {
      for (const a of c.accessors) deleteToken(tx, a);
      return true;
    },
  },
  "acl.policy.set": {
    atomic: true,
    decode: (r) => ({
      v,
      type: "acl.policy.set",
      op: decodeOp(r),
      policy: decodePolicySpec(obj(r, "policy")),
    }),
    apply: (tx, c) => putPolicy(tx, c.op, c.policy),
  },
  "acl.policy.delete": {
    decode: (r) => ({ v, type: "acl.policy.delete", id: str(r, "id") }),
    apply(tx, c) {
      if (c.id === GLOBAL_MANAGEMENT_POLICY_ID) {
        return applyError("Delete operation not permitted on the builtin global-management policy");
      }
      deletePolicy(tx, c.id);
      return true;
    },
  },
  "acl.role.set": {
    atomic: true,
    decode: (r) => ({ v, type: "acl.role.set", op: decodeOp(r), role: decodeRoleSpec(obj(r, "role")) }),
    apply: (tx, c) => putRole(tx, c.op, c.role),
  },
  "acl.role.delete": {
    decode: (r) => ({ v, type: "acl.role.delete", id: str(r, "id") }),
    apply(tx, c) {
      deleteRole(tx, c.id);
      return true;
    },
  },
  "acl.bootstrap": {
    atomic: true,
    decode: (r) => ({
      v,
      type: "acl.bootstrap",
      token: decodeTokenSpec(obj(r, "token")),
      policy: decodePolicySpec(obj(r, "policy")),
      now: int(r, "now"),
      ...optional("resetIndex", optInt(r, "resetIndex")),
    }),
    apply(tx, c) {
      const at = bootstrapIndex(tx.tables);
      if (at !== undefined && c.resetIndex === undefined)
        return applyError(`ACL bootstrap no longer allowed (reset index: ${at})`);
      if (at !== undefined && c.resetIndex !== at)
        return applyError(`Invalid bootstrap reset index (specified ${c.resetIndex}, reset index: ${at})`);
      const built = ensureBuiltins(tx, c.now, c.policy);
      return built === true ? bootstrap(tx, c.token, c.now) : built;
    },
  },
  "acl.init": {
    atomic: true,
    decode: (r) => {
      const initial = optObj(r, "initialManagement");
      return {
        v,
        type: "acl.init",
        policy: decodePolicySpec(obj(r, "policy")),
        anonymous: decodeTokenSpec(obj(r, "anonymous")),
        ...(initial ? { initialManagement: decodeTokenSpec(initial) } : {}),
        now: int(r, "now"),
      };
    },
    apply(tx, c) {
      const built = ensureBuiltins(tx, c.now, c.policy, c.anonymous);
      if (built !== true) return built;
      const initial = c.initialManagement;
      if (!initial || tx.tables.aclTokenSecrets.has(initial.SecretID)) return true;
      // As Consul: the configured management token bootstraps the cluster if nothing did before.
      if (bootstrapIndex(tx.tables) === undefined) return bootstrap(tx, initial, c.now);
      return putToken(tx, "create", initial, c.now);
    },
  },
};
