import type { AclLinkRef, AclPolicy, AclRole, AclStateReads, AclToken, Namespace } from "@cairn/fsm";

/**
 * Response shapes of ACL records and namespaces, as Consul's JSON: links carry both ID and the current
 * Name (links to records deleted since are dropped), empty link lists are null, empty optional fields are
 * left out.
 */

export type SecretMode = "shown" | "hidden";

export const HIDDEN_SECRET = "<hidden>";

function policyLinks(acl: AclStateReads, refs: readonly AclLinkRef[]) {
  const out: Array<{ ID: string; Name: string }> = [];
  for (const ref of refs) {
    const p = acl.policy(ref.ID);
    if (p) out.push({ ID: p.ID, Name: p.Name });
  }
  return out.length > 0 ? out : null;
}

function roleLinks(acl: AclStateReads, refs: readonly AclLinkRef[]) {
  const out: Array<{ ID: string; Name: string }> = [];
  for (const ref of refs) {
    const r = acl.role(ref.ID);
    if (r) out.push({ ID: r.ID, Name: r.Name });
  }
  return out.length > 0 ? out : null;
}

/**
 * A token as the token endpoints show it; `stub` is a list entry (with `Legacy`). `Type` (the ID-based
 * API's client/management) is not part of it, as in Consul; `AuthMethodNamespace` only outside the default
 * namespace, as Consul's open-source edition has no such field.
 */
export function tokenJson(
  acl: AclStateReads,
  t: AclToken,
  secret: SecretMode,
  stub = false,
): Record<string, unknown> {
  const out: Record<string, unknown> = { AccessorID: t.AccessorID };
  out.SecretID = secret === "shown" ? t.SecretID : HIDDEN_SECRET;
  out.Description = t.Description;
  out.Policies = policyLinks(acl, t.Policies);
  out.Roles = roleLinks(acl, t.Roles);
  if (t.ServiceIdentities.length > 0) out.ServiceIdentities = t.ServiceIdentities;
  if (t.NodeIdentities.length > 0) out.NodeIdentities = t.NodeIdentities;
  out.Local = t.Local;
  if (t.AuthMethod !== "") out.AuthMethod = t.AuthMethod;
  if (t.ExpirationTime !== "") out.ExpirationTime = t.ExpirationTime;
  if (t.Rules !== "") out.Rules = t.Rules;
  out.CreateTime = t.CreateTime;
  out.Hash = t.Hash;
  out.Namespace = t.Namespace;
  const methodNs = t.AuthMethodNamespace || t.Namespace;
  if (t.AuthMethod !== "" && (methodNs !== "default" || t.Namespace !== "default")) {
    out.AuthMethodNamespace = methodNs;
  }
  // Consul marks list entries of tokens that still carry ID-based rules.
  if (stub) out.Legacy = t.Rules !== "";
  out.CreateIndex = t.CreateIndex;
  out.ModifyIndex = t.ModifyIndex;
  return out;
}

export function policyJson(p: AclPolicy, withRules = true): Record<string, unknown> {
  const out: Record<string, unknown> = { ID: p.ID, Name: p.Name, Description: p.Description };
  if (withRules) out.Rules = p.Rules;
  if (p.Datacenters.length > 0) out.Datacenters = p.Datacenters;
  out.Hash = p.Hash;
  out.Namespace = p.Namespace;
  out.CreateIndex = p.CreateIndex;
  out.ModifyIndex = p.ModifyIndex;
  return out;
}

export function roleJson(acl: AclStateReads, r: AclRole): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ID: r.ID,
    Name: r.Name,
    Description: r.Description,
    Policies: policyLinks(acl, r.Policies),
  };
  if (r.ServiceIdentities.length > 0) out.ServiceIdentities = r.ServiceIdentities;
  if (r.NodeIdentities.length > 0) out.NodeIdentities = r.NodeIdentities;
  out.Hash = r.Hash;
  out.Namespace = r.Namespace;
  out.CreateIndex = r.CreateIndex;
  out.ModifyIndex = r.ModifyIndex;
  return out;
}

/** A namespace; `bare` leaves out ACLs and Meta (how lists show `default`). */
export function namespaceJson(acl: AclStateReads, n: Namespace, bare = false): Record<string, unknown> {
  const out: Record<string, unknown> = { Name: n.Name, Description: n.Description };
  if (!bare && n.ACLs) {
    out.ACLs = {
      PolicyDefaults: policyLinks(acl, n.ACLs.PolicyDefaults) ?? [],
      RoleDefaults: roleLinks(acl, n.ACLs.RoleDefaults) ?? [],
    };
  }
  if (!bare && n.Meta && Object.keys(n.Meta).length > 0) out.Meta = n.Meta;
  if (n.DeletedAt) out.DeletedAt = n.DeletedAt;
  out.CreateIndex = n.CreateIndex;
  out.ModifyIndex = n.ModifyIndex;
  return out;
}

/** The ID-based API's view of a token. */
export function legacyTokenJson(t: AclToken): Record<string, unknown> {
  return {
    ID: t.SecretID,
    Name: t.Description,
    Type: t.Type === "management" ? "management" : "client",
    Rules: t.Rules,
    CreateIndex: t.CreateIndex,
    ModifyIndex: t.ModifyIndex,
  };
}
