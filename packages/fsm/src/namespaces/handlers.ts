import type { AclLinkRef } from "../acl/records.js";
import { int, obj, optList, optObj, optStr, type Raw, rawItem, str, stringMap } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION } from "../commands/version.js";
import { type ApplyError, applyError } from "../store/errors.js";
import type { Tx } from "../store/tx.js";
import type { NamespaceCommand } from "./commands.js";
import { purgeNamespaceContents } from "./purge.js";
import {
  BUILTIN_DEFAULT_NAMESPACE,
  DEFAULT_NAMESPACE_NAME,
  type NamespaceAcls,
  type NamespaceSpec,
} from "./records.js";
import { namespacesChannel } from "./tables.js";

const v = COMMAND_VERSION;

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
    return applyError(`Namespace ${JSON.stringify(spec.Name)} does not exist`, "not-found");
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

export const namespaceHandlers: HandlerMap<NamespaceCommand> = {
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
      if (!existing) return applyError(`Namespace ${JSON.stringify(c.name)} does not exist`, "not-found");
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
      purgeNamespaceContents(tx, c.name, c.now);
      tx.tables.namespaces.delete(c.name);
      changed(tx);
      return true;
    },
  },
};
