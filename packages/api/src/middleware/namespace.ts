import { badRequest } from "../http/errors.js";

export const DEFAULT_NAMESPACE = "default";

/** `?ns=`, then the `X-Service-Namespace` / `X-Consul-Namespace` header, else `default`. */
export function extractNamespace(
  queryNs: string | undefined,
  header: (name: string) => string | undefined,
): string {
  return queryNs || header("x-service-namespace") || header("x-consul-namespace") || DEFAULT_NAMESPACE;
}

/** `*` selects every namespace, which only list reads accept; anything addressing one record needs one. */
export function singleNamespace(ns: string): string {
  if (ns === "*") throw badRequest('Invalid namespace "*": a wildcard is only allowed on list reads');
  return ns;
}
