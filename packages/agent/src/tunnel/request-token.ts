/**
 * The ACL token a request names, where Consul looks for one: `?token=`, the `X-Service-Token` /
 * `X-Consul-Token` header, then `Authorization: Bearer`. Empty: none (the agent's default token applies).
 */
export function requestToken(url: string, headers: Headers): string {
  const query = url.indexOf("?");
  if (query >= 0) {
    const token = new URLSearchParams(url.slice(query + 1)).get("token");
    if (token) return token;
  }
  const direct = headers.get("x-service-token") || headers.get("x-consul-token");
  if (direct) return direct;
  const bearer = /^\s*bearer\s+(\S+)/i.exec(headers.get("authorization") ?? "");
  return bearer?.[1] ?? "";
}
