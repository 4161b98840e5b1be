import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "../http/env.js";

export const DEFAULT_NAMESPACE = "default";

/** `?ns=`, then the `X-Service-Namespace` / `X-Consul-Namespace` header, else `default`. */
export function extractNamespace(
  queryNs: string | undefined,
  header: (name: string) => string | undefined,
): string {
  return queryNs || header("x-service-namespace") || header("x-consul-namespace") || DEFAULT_NAMESPACE;
}

export const namespaceMiddleware: MiddlewareHandler<ApiEnv> = async (c, next) => {
  c.set(
    "namespace",
    extractNamespace(c.var.query.get("ns"), (name) => c.req.header(name)),
  );
  await next();
};
