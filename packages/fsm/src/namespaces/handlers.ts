import { int, obj, optList, optObj, optStr, type Raw, rawItem, str, stringMap } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { type ApplyError, applyError } from "../commands/results.js";
import { COMMAND_VERSION } from "../commands/types.js";
import { deleteCheck, deleteService } from "../state/catalog.js";
import { kvDelete } from "../state/kv.js";
import { sessionInvalidate } from "../state/sessions.js";
import { prefixEnd, SEP } from "../state/tables.js";
import type { Tx } from "../state/tx.js";
import { deletePolicy, deleteRole, deleteToken } from "./acl.js";
import type { AclLinkRef } from "./acl-records.js";
import { purgeAuthMethods } from "./auth-methods.js";
import { configEntryChannel, configEntryKey, configKindChannel } from "./config-entries.js";

/**
 * Namespaces (spec 1; Consul Enterprise's, as an ordinary feature). `default` is built in: it exists
 * whether or not a record was ever written for it and cannot be deleted. Deletion marks the namespace
 * (`DeletedAt`); the leader then issues `namespace.purge`, which removes its keys, sessions, services,
 * checks, config entries, tokens, policies and roles and the namespace itself in one apply.
 */

const v = COMMAND_VERSION;

export const DEFAULT_NAMESPACE_NAME = "default";
export const DEFAULT_NAMESPACE_DESCRIPTION = "Builtin Default Namespace";
export const namespacesChannel = "namespaces";

export interface NamespaceAcls {
  readonly PolicyDefaults: readonly AclLinkRef[];
  readonly RoleDefaults: readonly AclLinkRef[];
}

export interface NamespaceSpec {
  readonly Name: string;
  readonly Description: string;
  readonly ACLs?: NamespaceAcls;
  readonly Meta?: Readonly<Record<string, string>>;
}

export interface Namespace extends NamespaceSpec {
  /** RFC 3339; present while the namespace is marked for deletion. */
  readonly DeletedAt?: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export interface NamespaceSetCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "namespace.set";
  readonly op: "create" | "update";
  readonly namespace: NamespaceSpec;
}

/** Marks a namespace for deletion at `now`. */
export interface NamespaceDeleteCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "namespace.delete";
  readonly name: string;
  readonly now: number;
}

/** Leader-issued: removes a marked namespace and everything in it. */
export interface NamespacePurgeCommand {
  readonly v: typeof COMMAND_VERSION;
  readonly type: "namespace.purge";
  readonly name: string;
  readonly now: number;
}

export type NamespaceCommand = NamespaceSetCommand | NamespaceDeleteCommand | NamespacePurgeCommand;

/** The built-in default namespace as reads show it when no record was written for it. */
export const BUILTIN_DEFAULT_NAMESPACE: Namespace = {
  Name: DEFAULT_NAMESPACE_NAME,
  Description: DEFAULT_NAMESPACE_DESCRIPTION,
  CreateIndex: 1,
  ModifyIndex: 1,
};

function changed(tx: Tx): void {
  tx.tables.indexes.namespaces = tx.index;
  tx.touch(namespacesChannel);
}

function missingDefaults(tx: Tx, acls: NamespaceAcls | undefined): string | undefined {
  for (const l of acls?.PolicyDefaults ?? []) {
    if (!tx.tables.aclPolicies.has(l.ID)) return `No such ACL policy with ID "${l.ID}"`;
  }
  for (const l of acls?.RoleDefaults ?? []) {
    if (!tx.tables.aclRoles.has(l.ID)) return `No such ACL role with ID "${l.ID}"`;
  }
  return undefined;
}

function putNamespace(tx: Tx, op: "create" | "update", spec: NamespaceSpec): true | ApplyError {
  const t = tx.tables;
  const existing = t.namespaces.get(spec.Name);
  const isDefault = spec.Name === DEFAULT_NAMESPACE_NAME;
  if (op === "create" && (existing || isDefault)) {
    return applyError(`Namespace ${JSON.stringify(spec.Name)} already exists`);
  }
  if (op === "update" && !existing && !isDefault) {
    return applyError(`Namespace ${JSON.stringify(spec.Name)} does not exist`, 404);
  }
  if (existing?.DeletedAt) return applyError(`Namespace ${JSON.stringify(spec.Name)} is being deleted`);
  const missing = missingDefaults(tx, spec.ACLs);
  if (missing) return applyError(missing);
  const base = existing ?? (isDefault ? BUILTIN_DEFAULT_NAMESPACE : undefined);
  t.namespaces.set(spec.Name, {
    ...spec,
    CreateIndex: base?.CreateIndex ?? tx.index,
    ModifyIndex: tx.index,
  });
  changed(tx);
  return true;
}

/** Removes every record that lives in `ns`. */
function purgeContents(tx: Tx, ns: string, now: number): void {
  const t = tx.tables;
  const kvPrefix = ns + SEP;
  const keys: string[] = [];
  t.kv.forRange(kvPrefix, prefixEnd(kvPrefix), false, (k) => void keys.push(k));
  for (const k of keys) kvDelete(tx, k);

  const sessions: string[] = [];
  t.sessions.forEach((s) => {
    if (s.Namespace === ns) sessions.push(s.ID);
  });
  for (const id of sessions) sessionInvalidate(tx, id, now);

  const services: Array<[string, string]> = [];
  t.services.forEach((s, key) => {
    if (s.Namespace === ns) services.push([key.slice(0, key.indexOf(SEP)), s.ID]);
  });
  for (const [node, id] of services) deleteService(tx, node, ns, id, now);
  const checks: Array<[string, string]> = [];
  t.checks.forEach((c) => {
    if (c.Namespace === ns) checks.push([c.Node, c.CheckID]);
  });
  for (const [node, id] of checks) deleteCheck(tx, node, ns, id, now);

  const entries: Array<[string, string, string]> = [];
  t.configEntries.forEach((_, key) => {
    const [kind = "", entryNs = "", name = ""] = key.split(SEP);
    if (entryNs === ns) entries.push([kind, entryNs, name]);
  });
  for (const [kind, entryNs, name] of entries) {
    t.configEntries.delete(configEntryKey(kind, entryNs, name));
    t.indexes.configEntries = tx.index;
    tx.touch(configKindChannel(kind));
    tx.touch(configEntryChannel(kind, entryNs, name));
  }

  const tokens: string[] = [];
  t.aclTokens.forEach((tok) => {
    if (tok.Namespace === ns) tokens.push(tok.AccessorID);
  });
  for (const a of tokens) deleteToken(tx, a);
  const policies: string[] = [];
  t.aclPolicies.forEach((p) => {
    if (p.Namespace === ns) policies.push(p.ID);
  });
  for (const id of policies) deletePolicy(tx, id);
  const roles: string[] = [];
  t.aclRoles.forEach((r) => {
    if (r.Namespace === ns) roles.push(r.ID);
  });
  for (const id of roles) deleteRole(tx, id);
  purgeAuthMethods(tx, ns);
}

const links = (r: Raw | undefined, field: string): AclLinkRef[] =>
  (r && optList(r, field, (x, at) => ({ ID: str(rawItem(x, at), "ID") }))) ?? [];

function decodeSpec(r: Raw): NamespaceSpec {
  const acls = optObj(r, "ACLs");
  const meta = stringMap(r, "Meta");
  return {
    Name: str(r, "Name"),
    Description: optStr(r, "Description") ?? "",
    ...(acls
      ? { ACLs: { PolicyDefaults: links(acls, "PolicyDefaults"), RoleDefaults: links(acls, "RoleDefaults") } }
      : {}),
    ...(meta ? { Meta: meta } : {}),
  };
}

export const namespaceHandlers: HandlerMap<NamespaceCommand["type"]> = {
  "namespace.set": {
    decode: (r) => ({
      v,
      type: "namespace.set",
      op: str(r, "op") === "update" ? "update" : "create",
      namespace: decodeSpec(obj(r, "namespace")),
    }),
    apply: (tx, c) => putNamespace(tx, c.op, c.namespace),
  },
  "namespace.delete": {
    decode: (r) => ({ v, type: "namespace.delete", name: str(r, "name"), now: int(r, "now") }),
    apply(tx, c) {
      if (c.name === DEFAULT_NAMESPACE_NAME) return applyError("Cannot delete the default namespace");
      const existing = tx.tables.namespaces.get(c.name);
      if (!existing) return applyError(`Namespace ${JSON.stringify(c.name)} does not exist`, 404);
      if (existing.DeletedAt) return true;
      tx.tables.namespaces.set(c.name, {
        ...existing,
        DeletedAt: new Date(c.now).toISOString(),
        ModifyIndex: tx.index,
      });
      changed(tx);
      return true;
    },
  },
  "namespace.purge": {
    atomic: true,
    decode: (r) => ({ v, type: "namespace.purge", name: str(r, "name"), now: int(r, "now") }),
    apply(tx, c) {
      const existing = tx.tables.namespaces.get(c.name);
      if (!existing?.DeletedAt) return true;
      purgeContents(tx, c.name, c.now);
      tx.tables.namespaces.delete(c.name);
      changed(tx);
      return true;
    },
  },
};

/** Names of namespaces marked for deletion (what the leader purges). */
export function markedNamespaces(namespaces: Iterable<Namespace>): string[] {
  const out: string[] = [];
  for (const n of namespaces) if (n.DeletedAt) out.push(n.Name);
  return out;
}
