import { createHash } from "node:crypto";
import { CommandDecodeError } from "../commands/errors.js";
import {
  int,
  isRaw,
  list,
  optBool,
  optList,
  optStr,
  type Raw,
  rawItem,
  str,
  strItem,
} from "../commands/fields.js";

/**
 * The stored shapes of ACL tokens, policies and roles, and their msgpack decoders. Links to policies and
 * roles are stored by ID only (spec 1: a rename must not break tokens); reads add the current names.
 */

export interface AclLinkRef {
  readonly ID: string;
}

export interface StoredServiceIdentity {
  readonly ServiceName: string;
  readonly Datacenters?: readonly string[];
}

export interface StoredNodeIdentity {
  readonly NodeName: string;
  readonly Datacenter: string;
}

/** What the API sends for a token; the state machine adds CreateTime, Hash and the indexes. */
export interface AclTokenSpec {
  readonly AccessorID: string;
  readonly SecretID: string;
  readonly Description: string;
  readonly Policies: readonly AclLinkRef[];
  readonly Roles: readonly AclLinkRef[];
  readonly ServiceIdentities: readonly StoredServiceIdentity[];
  readonly NodeIdentities: readonly StoredNodeIdentity[];
  readonly Local: boolean;
  readonly AuthMethod: string;
  /**
   * The namespace of the auth method that created the token, which namespace rules may have put elsewhere.
   * Absent from tokens stored before it was kept: theirs is the token's namespace.
   */
  readonly AuthMethodNamespace?: string;
  /** RFC 3339; "" never expires. */
  readonly ExpirationTime: string;
  /**
   * Milliseconds after the command's `now` the token expires, when the client gave a TTL (ExpirationTime
   * then ""): the state machine resolves it at apply, so every server stores the time from the leader's
   * clock. Never stored.
   */
  readonly ExpirationTTL?: number;
  readonly Namespace: string;
  /** ID-based (legacy) tokens: `client` or `management`; "" for new-style tokens. */
  readonly Type: string;
  /** ID-based tokens' own rules (legacy syntax). */
  readonly Rules: string;
}

export interface AclToken extends AclTokenSpec {
  readonly CreateTime: string;
  readonly Hash: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export interface AclPolicySpec {
  readonly ID: string;
  readonly Name: string;
  readonly Description: string;
  readonly Rules: string;
  readonly Datacenters: readonly string[];
  readonly Namespace: string;
}

export interface AclPolicy extends AclPolicySpec {
  readonly Hash: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export interface AclRoleSpec {
  readonly ID: string;
  readonly Name: string;
  readonly Description: string;
  readonly Policies: readonly AclLinkRef[];
  readonly ServiceIdentities: readonly StoredServiceIdentity[];
  readonly NodeIdentities: readonly StoredNodeIdentity[];
  readonly Namespace: string;
}

export interface AclRole extends AclRoleSpec {
  readonly Hash: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** A deterministic content hash (base64 SHA-256 of the fields that change what a record grants). */
export function contentHash(parts: readonly unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64");
}

export function tokenHash(t: AclTokenSpec): string {
  return contentHash([
    t.Description,
    t.Policies.map((l) => l.ID),
    t.Roles.map((l) => l.ID),
    t.ServiceIdentities,
    t.NodeIdentities,
    t.Local,
    t.Type,
    t.Rules,
  ]);
}

export function policyHash(p: AclPolicySpec): string {
  return contentHash([p.Name, p.Description, p.Rules, p.Datacenters]);
}

export function roleHash(r: AclRoleSpec): string {
  return contentHash([
    r.Name,
    r.Description,
    r.Policies.map((l) => l.ID),
    r.ServiceIdentities,
    r.NodeIdentities,
  ]);
}

const links = (r: Raw, field: string): AclLinkRef[] =>
  optList(r, field, (x, at) => ({ ID: str(rawItem(x, at), "ID") })) ?? [];

function serviceIdentities(r: Raw): StoredServiceIdentity[] {
  return (
    optList(r, "ServiceIdentities", (x, at) => {
      const si = rawItem(x, at);
      const dcs = optList(si, "Datacenters", strItem);
      return dcs && dcs.length > 0
        ? { ServiceName: str(si, "ServiceName"), Datacenters: dcs }
        : { ServiceName: str(si, "ServiceName") };
    }) ?? []
  );
}

function nodeIdentities(r: Raw): StoredNodeIdentity[] {
  return (
    optList(r, "NodeIdentities", (x, at) => {
      const ni = rawItem(x, at);
      return { NodeName: str(ni, "NodeName"), Datacenter: str(ni, "Datacenter") };
    }) ?? []
  );
}

export function decodeTokenSpec(raw: unknown): AclTokenSpec {
  if (!isRaw(raw)) throw new CommandDecodeError('command field "token" must be an object');
  return {
    AccessorID: str(raw, "AccessorID"),
    SecretID: str(raw, "SecretID"),
    Description: optStr(raw, "Description") ?? "",
    Policies: links(raw, "Policies"),
    Roles: links(raw, "Roles"),
    ServiceIdentities: serviceIdentities(raw),
    NodeIdentities: nodeIdentities(raw),
    Local: optBool(raw, "Local") ?? false,
    AuthMethod: optStr(raw, "AuthMethod") ?? "",
    ...(optStr(raw, "AuthMethodNamespace")
      ? { AuthMethodNamespace: optStr(raw, "AuthMethodNamespace") }
      : {}),
    ExpirationTime: optStr(raw, "ExpirationTime") ?? "",
    ...(raw.ExpirationTTL == null ? {} : { ExpirationTTL: int(raw, "ExpirationTTL") }),
    Namespace: optStr(raw, "Namespace") || "default",
    Type: optStr(raw, "Type") ?? "",
    Rules: optStr(raw, "Rules") ?? "",
  };
}

export function decodePolicySpec(raw: unknown): AclPolicySpec {
  if (!isRaw(raw)) throw new CommandDecodeError('command field "policy" must be an object');
  return {
    ID: str(raw, "ID"),
    Name: str(raw, "Name"),
    Description: optStr(raw, "Description") ?? "",
    Rules: optStr(raw, "Rules") ?? "",
    Datacenters: raw.Datacenters == null ? [] : list(raw, "Datacenters", strItem),
    Namespace: optStr(raw, "Namespace") || "default",
  };
}

export function decodeRoleSpec(raw: unknown): AclRoleSpec {
  if (!isRaw(raw)) throw new CommandDecodeError('command field "role" must be an object');
  return {
    ID: str(raw, "ID"),
    Name: str(raw, "Name"),
    Description: optStr(raw, "Description") ?? "",
    Policies: links(raw, "Policies"),
    ServiceIdentities: serviceIdentities(raw),
    NodeIdentities: nodeIdentities(raw),
    Namespace: optStr(raw, "Namespace") || "default",
  };
}
