import type { MiddlewareHandler } from "hono";
import { readBodyLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { HttpError } from "../http/errors.js";
import type { RouteContext } from "../http/route-context.js";

/**
 * In a secondary datacenter, writes of what the primary is authoritative for — ACL policies, roles, global
 * tokens (and the ID-based API's tokens, which are all global), bootstrap, config entries — are sent to
 * the primary, as Consul's servers forward them; replication brings the result back. Local tokens, and
 * everything in the primary itself, are handled here.
 */
export function primaryWrites(ctx: RouteContext): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const method = c.req.method;
    if (ctx.primaryDatacenter === ctx.datacenter) return next();
    if (method === "GET" || method === "HEAD") {
      if (!isPrimaryTokenRead(ctx, c.req.path)) return next();
      return toPrimary(ctx, c.req.raw, method, Buffer.alloc(0));
    }
    // Read once here (a token's locality is in its body); the route gets the same bytes.
    const body = await readBodyLimited(
      c,
      ctx.config.maxBodyBytes,
      (n) => `Request body too large (${n} bytes)`,
    );
    c.set("body", body);
    if (!isGlobalWrite(ctx, c.req.path, method, body)) return next();
    return toPrimary(ctx, c.req.raw, method, body);
  };
}

function toPrimary(ctx: RouteContext, raw: Request, method: string, body: Buffer): Promise<Response> {
  const url = new URL(raw.url);
  // The primary answers for itself: a `dc` naming this datacenter would send it straight back.
  url.searchParams.delete("dc");
  const headers = new Headers(raw.headers);
  headers.delete("content-length");
  const request = new Request(url, {
    method,
    headers,
    ...(body.byteLength > 0 && method !== "DELETE" ? { body: new Uint8Array(body) } : {}),
    signal: raw.signal,
  });
  const forwarded = ctx.forwardDatacenter(ctx.primaryDatacenter, request);
  if (forwarded === undefined) {
    throw new HttpError(500, `No path to datacenter (primary datacenter ${ctx.primaryDatacenter})`);
  }
  return forwarded;
}

/**
 * Without token replication a secondary holds only its local tokens, so (as Consul's servers do) token
 * lists and reads of a token it does not hold — `self` included — are answered by the primary.
 */
function isPrimaryTokenRead(ctx: RouteContext, path: string): boolean {
  if (ctx.tokenReplication) return false;
  if (path === "/v1/acl/tokens") return true;
  const m = /^\/v1\/acl\/token\/([^/]+)$/.exec(path);
  if (m === null) return false;
  if (m[1] === "self") return true;
  return !ctx.backend.store
    .view()
    .acl()
    .token(decodeURIComponent(m[1] ?? ""));
}

const GLOBAL_ACL = [
  /^\/v1\/acl\/(policy|role)(\/|$)/,
  /^\/v1\/acl\/(bootstrap|create|update)$/,
  /^\/v1\/acl\/(destroy|clone)\//,
];

function isGlobalWrite(ctx: RouteContext, path: string, method: string, body: Buffer): boolean {
  if (path === "/v1/config" || path.startsWith("/v1/config/")) return true;
  if (GLOBAL_ACL.some((re) => re.test(path))) return true;
  if (path === "/v1/acl/token") return !saysLocal(body);
  const m = /^\/v1\/acl\/token\/([^/]+)(\/clone)?$/.exec(path);
  if (m === null || m[1] === "self") return false;
  // An existing token keeps its locality; one this datacenter does not hold can only be global.
  const stored = ctx.backend.store
    .view()
    .acl()
    .token(decodeURIComponent(m[1] ?? ""));
  if (stored) return !stored.Local;
  return method === "PUT" && !m[2] ? !saysLocal(body) : true;
}

function saysLocal(raw: Buffer): boolean {
  try {
    const body: unknown = JSON.parse(raw.toString("utf8"));
    return typeof body === "object" && body !== null && (body as { Local?: unknown }).Local === true;
  } catch {
    // A body that does not parse is refused here, with the usual reason.
    return true;
  }
}
