/**
 * The request's ACL token secret, looked up as Consul does: `?token=`, then the `X-Service-Token` /
 * `X-Consul-Token` header, then `Authorization: Bearer <token>`. Empty means the anonymous token.
 */
export function extractToken(
  queryToken: string | undefined,
  header: (name: string) => string | undefined,
): string {
  if (queryToken) return queryToken;
  const direct = header("x-service-token") || header("x-consul-token");
  if (direct) return direct;
  const authorization = header("authorization");
  if (authorization) {
    const [scheme, ...rest] = authorization.trim().split(/\s+/);
    if (scheme?.toLowerCase() === "bearer" && rest[0]) return rest[0];
  }
  return "";
}
