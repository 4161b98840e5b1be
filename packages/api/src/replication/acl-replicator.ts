import { AclRulesError, parseRules } from "@cairn/acl";
import {
  type AclPolicy,
  type AclPolicySpec,
  type AclRole,
  type AclRoleSpec,
  type AclToken,
  type AclTokenSpec,
  COMMAND_VERSION,
  type Command,
} from "@cairn/fsm";
import { HIDDEN_SECRET } from "../acl/shapes.js";
import type { StateReader } from "../state-reader.js";
import { decodeList, policyStubs, remotePolicy, remoteRoles, remoteTokens } from "./acl-schemas.js";
import type { ApplyLimiter } from "./limiter.js";
import type { PrimaryFetch } from "./primary.js";
import { ReplicationWrites } from "./writes.js";

export interface AclReplicationOptions {
  readonly store: StateReader;
  /** Proposes a command through this datacenter's Raft (the secondary's leader). */
  readonly apply: (command: Command) => Promise<unknown>;
  readonly primary: PrimaryFetch;
  /** `acl.enable_token_replication`: global tokens too, not only policies and roles. */
  readonly tokens: boolean;
  readonly limiter: ApplyLimiter;
}

export interface AclReplicationOutcome {
  readonly policyIndex: number;
  readonly roleIndex: number;
  /** 0 without token replication. */
  readonly tokenIndex: number;
  /** Local updates made (creates, updates and deletions). */
  readonly updates: number;
  /** Objects left out, each with why (rules that do not parse, links to what was left out). */
  readonly skipped: readonly string[];
}

const v = COMMAND_VERSION;
/** Token writes under way at once during replication. */
const MAX_IN_FLIGHT = 32;

/** Runs the tasks in order of start, at most `limit` at a time. */
async function inFlight(tasks: readonly (() => Promise<unknown>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}
const linkIds = (links: readonly { ID: string }[]) => links.map((l) => l.ID);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function policyKey(p: AclPolicySpec) {
  return [p.Name, p.Description, p.Rules, p.Datacenters, p.Namespace];
}

function roleKey(r: AclRoleSpec) {
  return [r.Name, r.Description, linkIds(r.Policies), r.ServiceIdentities, r.NodeIdentities, r.Namespace];
}

function tokenKey(t: AclTokenSpec) {
  return [
    t.SecretID,
    t.Description,
    linkIds(t.Policies),
    linkIds(t.Roles),
    t.ServiceIdentities,
    t.NodeIdentities,
    t.Local,
    t.AuthMethod,
    t.ExpirationTime,
    t.Namespace,
    t.Rules,
  ];
}

/**
 * One replication pass of the secondary: brings its policies, roles and (with token replication) global
 * tokens to what the primary holds, as Consul's ACL replication does. Upserts go policies, roles, tokens
 * (so links resolve), deletions the other way round; each object is one Raft command, so an object is
 * applied whole or not at all. A policy whose rules do not parse here is left out and reported, as is
 * anything that fails to apply; the rest goes on. The secondary's `Local` tokens are never touched.
 */
export async function replicateAcl(o: AclReplicationOptions): Promise<AclReplicationOutcome> {
  const writes = new ReplicationWrites(o.limiter, o.apply);
  const { apply, skipped } = writes;

  // Policies: the list carries hashes; a policy is read in full only when it is new or changed.
  const policyList = await o.primary("/v1/acl/policies");
  const stubs = decodeList(policyStubs, policyList.body, "policy list");
  const wantedPolicies = new Set(stubs.map((p) => p.ID));
  const acl = () => o.store.view().acl();
  for (const stub of stubs) {
    const local = acl().policy(stub.ID);
    if (local && stub.Hash && local.Hash === stub.Hash) continue;
    const read = await o.primary(`/v1/acl/policy/${encodeURIComponent(stub.ID)}`);
    const spec: AclPolicySpec = decodeList(remotePolicy, read.body, "policy");
    if (local && same(policyKey(local), policyKey(spec))) continue;
    try {
      parseRules(spec.Rules, { namespace: spec.Namespace });
    } catch (err) {
      if (!(err instanceof AclRulesError)) throw err;
      skipped.push(`policy ${JSON.stringify(spec.Name)} (${spec.ID}): rules do not parse: ${err.message}`);
      continue;
    }
    // A stale local policy holding the name (deleted and re-created in the primary) goes first.
    const holder = acl().policyByName(spec.Name, spec.Namespace);
    if (holder && holder.ID !== spec.ID && !wantedPolicies.has(holder.ID)) {
      await apply({ v, type: "acl.policy.delete", id: holder.ID }, `policy ${holder.ID}`);
    }
    await apply(
      { v, type: "acl.policy.set", op: local ? "update" : "create", policy: spec },
      `policy ${JSON.stringify(spec.Name)} (${spec.ID})`,
    );
  }

  const roleList = await o.primary("/v1/acl/roles");
  const roles = decodeList(remoteRoles, roleList.body, "role list");
  const wantedRoles = new Set(roles.map((r) => r.ID));
  for (const r of roles) {
    const spec: AclRoleSpec = {
      ID: r.ID,
      Name: r.Name,
      Description: r.Description,
      Policies: r.Policies.map((l) => ({ ID: l.ID })),
      ServiceIdentities: r.ServiceIdentities,
      NodeIdentities: r.NodeIdentities,
      Namespace: r.Namespace,
    };
    const local: AclRole | undefined = acl().role(r.ID);
    if (local && same(roleKey(local), roleKey(spec))) continue;
    const holder = acl().roleByName(spec.Name, spec.Namespace);
    if (holder && holder.ID !== spec.ID && !wantedRoles.has(holder.ID)) {
      await apply({ v, type: "acl.role.delete", id: holder.ID }, `role ${holder.ID}`);
    }
    await apply(
      { v, type: "acl.role.set", op: local ? "update" : "create", role: spec },
      `role ${JSON.stringify(spec.Name)} (${spec.ID})`,
    );
  }

  let tokenIndex = 0;
  if (o.tokens) {
    const tokenList = await o.primary("/v1/acl/tokens");
    tokenIndex = tokenList.index;
    const tokens = decodeList(remoteTokens, tokenList.body, "token list").filter((t) => !t.Local);
    if (tokens.some((t) => t.SecretID === HIDDEN_SECRET)) {
      throw new Error('token replication needs a replication token with acl = "write" in the primary');
    }
    const wanted = new Set(tokens.map((t) => t.AccessorID));
    // Tokens are independent of each other: their writes are started at the limiter's pace without
    // waiting for each commit, so a large catch-up is bounded by the rate, not by Raft's round trips.
    const writes: Array<() => Promise<boolean>> = [];
    for (const t of tokens) {
      const local: AclToken | undefined = acl().token(t.AccessorID);
      const spec: AclTokenSpec = {
        AccessorID: t.AccessorID,
        SecretID: t.SecretID,
        Description: t.Description,
        Policies: t.Policies.map((l) => ({ ID: l.ID })),
        Roles: t.Roles.map((l) => ({ ID: l.ID })),
        ServiceIdentities: t.ServiceIdentities,
        NodeIdentities: t.NodeIdentities,
        Local: false,
        AuthMethod: t.AuthMethod,
        ...(t.AuthMethodNamespace ? { AuthMethodNamespace: t.AuthMethodNamespace } : {}),
        ExpirationTime: t.ExpirationTime,
        Namespace: t.Namespace,
        // The ID-based API's type is not in the list; a replicated token keeps the one it has here.
        Type: local?.Type ?? "",
        Rules: t.Rules,
      };
      if (local && same(tokenKey(local), tokenKey(spec))) continue;
      if (local?.Local) {
        skipped.push(`token ${t.AccessorID}: a local token of this datacenter has the same AccessorID`);
        continue;
      }
      // A global token of this datacenter's own holding the secret (its initial management token, made
      // before federation) is not the primary's: it goes first, as it would at the end of this pass.
      const holder = acl().tokenBySecret(spec.SecretID);
      if (
        holder &&
        holder.AccessorID !== spec.AccessorID &&
        !holder.Local &&
        !wanted.has(holder.AccessorID)
      ) {
        await apply(
          { v, type: "acl.token.delete", accessors: [holder.AccessorID] },
          `token ${holder.AccessorID}`,
        );
      }
      const created = t.CreateTime ? Date.parse(t.CreateTime) : Number.NaN;
      writes.push(() =>
        apply(
          {
            v,
            type: "acl.token.set",
            op: local ? "update" : "create",
            token: spec,
            // A new token keeps the primary's CreateTime.
            now: Number.isFinite(created) ? created : Date.now(),
          },
          `token ${t.AccessorID}`,
        ),
      );
    }
    await inFlight(writes, MAX_IN_FLIGHT);
    const gone = acl()
      .readTokens({ ns: "*" })
      .value.filter((t) => !t.Local && !wanted.has(t.AccessorID))
      .map((t) => t.AccessorID);
    await inFlight(
      gone.map(
        (accessor) => () =>
          apply({ v, type: "acl.token.delete", accessors: [accessor] }, `token ${accessor}`),
      ),
      MAX_IN_FLIGHT,
    );
  }

  for (const r of acl().readRoles("*").value) {
    if (!wantedRoles.has(r.ID)) await apply({ v, type: "acl.role.delete", id: r.ID }, `role ${r.ID}`);
  }
  for (const p of acl().readPolicies("*").value as AclPolicy[]) {
    if (!wantedPolicies.has(p.ID)) await apply({ v, type: "acl.policy.delete", id: p.ID }, `policy ${p.ID}`);
  }
  return {
    policyIndex: policyList.index,
    roleIndex: roleList.index,
    tokenIndex,
    updates: writes.updates,
    skipped,
  };
}
