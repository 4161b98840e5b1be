import type { AclLinkRef } from "../acl/records.js";
import { DEFAULT_NAMESPACE } from "../store/keys.js";

/**
 * Namespaces (spec 1; Consul Enterprise's, as an ordinary feature). `default` is built in: it exists
 * whether or not a record was ever written for it and cannot be deleted. Deletion marks the namespace
 * (`DeletedAt`); the leader then issues `namespace.purge`, which removes its keys, sessions, services,
 * checks, config entries, tokens, policies and roles and the namespace itself in one apply.
 */

export const DEFAULT_NAMESPACE_NAME = DEFAULT_NAMESPACE;
export const DEFAULT_NAMESPACE_DESCRIPTION = "Builtin Default Namespace";

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

/** The built-in default namespace as reads show it when no record was written for it. */
export const BUILTIN_DEFAULT_NAMESPACE: Namespace = {
  Name: DEFAULT_NAMESPACE_NAME,
  Description: DEFAULT_NAMESPACE_DESCRIPTION,
  CreateIndex: 1,
  ModifyIndex: 1,
};

/** Names of namespaces marked for deletion (what the leader purges). */
export function markedNamespaces(namespaces: Iterable<Namespace>): string[] {
  const out: string[] = [];
  for (const n of namespaces) if (n.DeletedAt) out.push(n.Name);
  return out;
}
