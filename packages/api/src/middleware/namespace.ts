import { badRequest } from "../http/errors.js";

export const DEFAULT_NAMESPACE = "default";

/**
 * `?ns=`, then the `X-Service-Namespace` / `X-Consul-Namespace` header, then the namespace of the request's
 * token (spec 1; only known with ACLs on), else `default`.
 */
export function extractNamespace(
  queryNs: string | undefined,
  header: (name: string) => string | undefined,
  tokenNamespace?: () => string | undefined,
): string {
  return (
    queryNs ||
    header("x-service-namespace") ||
    header("x-consul-namespace") ||
    tokenNamespace?.() ||
    DEFAULT_NAMESPACE
  );
}

/** `*` selects every namespace, which only list reads accept; anything addressing one record needs one. */
export function singleNamespace(ns: string): string {
  if (ns === "*") throw badRequest('Invalid namespace "*": a wildcard is only allowed on list reads');
  return ns;
}
