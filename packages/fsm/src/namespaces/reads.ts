import { channelRead, type Read, type ViewScope } from "../store/read.js";
import { BUILTIN_DEFAULT_NAMESPACE, DEFAULT_NAMESPACE_NAME, type Namespace } from "./records.js";
import { namespacesChannel } from "./tables.js";

/** A namespace by name; `default` exists even when never written. */
export function namespace(v: ViewScope, name: string): Namespace | undefined {
  return (
    v.t.namespaces.get(name) ?? (name === DEFAULT_NAMESPACE_NAME ? BUILTIN_DEFAULT_NAMESPACE : undefined)
  );
}

export function readNamespace(v: ViewScope, name: string): Read<Namespace | undefined> {
  return channelRead(v, namespace(v, name), v.t.indexes.namespaces, namespacesChannel);
}

/** Every namespace, `default` first, then by name. */
export function readNamespaces(v: ViewScope): Read<Namespace[]> {
  const stored = [...v.t.namespaces.values()].filter((n) => n.Name !== DEFAULT_NAMESPACE_NAME);
  const def = namespace(v, DEFAULT_NAMESPACE_NAME) ?? BUILTIN_DEFAULT_NAMESPACE;
  return channelRead(v, [def, ...stored], v.t.indexes.namespaces, namespacesChannel);
}
