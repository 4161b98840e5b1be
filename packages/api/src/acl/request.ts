import type { AclLinkRef, AclStateReads } from "@cairn/fsm";
import type { Context, MiddlewareHandler } from "hono";
import type { z } from "zod";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, HttpError, permissionDenied } from "../http/errors.js";
import type { RouteContext } from "../http/route-context.js";
import { decodeBody } from "../json/decode-body.js";
import type { AclEnforcer } from "./enforcer.js";
import type { linkSchema } from "./schemas.js";

const ACLS_DISABLED = "ACL support disabled";

/** With ACLs off every ACL endpoint answers as Consul does. */
export function requireAcls(ctx: RouteContext): AclEnforcer {
  if (ctx.acl === undefined) throw new HttpError(401, ACLS_DISABLED);
  return ctx.acl;
}

/**
 * Mounted on /v1/acl/* when ACLs are off: Consul's 401 comes first, whatever the method and before any body
 * is read, so a write with a null or malformed body is told the same (python-consul raises ACLDisabled on it).
 */
export const aclsDisabled: MiddlewareHandler<ApiEnv> = async (c, next) => {
  if (c.req.method === "OPTIONS") return next();
  throw new HttpError(401, ACLS_DISABLED);
};

/** acl:read / acl:write in `ns`, or 403. */
export function requireAclAccess(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  ns: string,
  access: "read" | "write",
) {
  const acl = requireAcls(ctx);
  if (acl.forToken(c.get("token")).authorize(ns, "acl", "", access) !== "allow") throw permissionDenied();
  return acl;
}

/**
 * Whether `token` (the request's) has acl:write in `ns` (ACLs on): it may see tokens' secrets. Given the
 * token, not the Context, so that a held read's answer may ask it (parked.ts).
 */
export function mayWriteAcls(ctx: RouteContext, token: string, ns: string): boolean {
  return requireAcls(ctx).forToken(token).authorize(ns, "acl", "", "write") === "allow";
}

/**
 * Consul's management privilege (acl:write), which snapshots need as they carry every secret. Nothing
 * to check with ACLs off.
 */
export function requireManagement(ctx: RouteContext, c: Context<ApiEnv>): void {
  if (ctx.acl !== undefined && !ctx.acl.forToken(c.get("token")).isManagement()) throw permissionDenied();
}

export async function readBody<S extends z.ZodType>(ctx: RouteContext, c: Context<ApiEnv>, schema: S) {
  const text = await readTextLimited(
    c,
    ctx.config.maxBodyBytes,
    (n) => `Request body too large (${n} bytes)`,
  );
  return decodeBody(schema, text.trim() === "" ? "{}" : text);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: string): boolean {
  return UUID.test(text);
}

type Link = z.output<typeof linkSchema>;

/** Links by ID or Name resolved to stored IDs (each once); a missing target is a 400 naming it. */
export function resolvePolicyLinks(
  acl: AclStateReads,
  links: readonly Link[] | null | undefined,
  ns: string,
  field = "Policies",
): AclLinkRef[] {
  return resolveLinks(
    links,
    field,
    "policy",
    (id) => acl.policy(id)?.ID,
    (name) => acl.policyByName(name, ns)?.ID ?? acl.policyByName(name, "default")?.ID,
  );
}

export function resolveRoleLinks(
  acl: AclStateReads,
  links: readonly Link[] | null | undefined,
  ns: string,
  field = "Roles",
): AclLinkRef[] {
  return resolveLinks(
    links,
    field,
    "role",
    (id) => acl.role(id)?.ID,
    (name) => acl.roleByName(name, ns)?.ID ?? acl.roleByName(name, "default")?.ID,
  );
}

function resolveLinks(
  links: readonly Link[] | null | undefined,
  field: string,
  what: string,
  byId: (id: string) => string | undefined,
  byName: (name: string) => string | undefined,
): AclLinkRef[] {
  const out: AclLinkRef[] = [];
  const seen = new Set<string>();
  for (const link of links ?? []) {
    let id: string | undefined;
    if (link.ID) {
      id = byId(link.ID);
      if (id === undefined) throw badRequest(`${field}: no such ACL ${what} with ID "${link.ID}"`);
    } else if (link.Name) {
      id = byName(link.Name);
      if (id === undefined) throw badRequest(`${field}: no such ACL ${what} with name "${link.Name}"`);
    } else {
      throw badRequest(`${field}: a link needs an ID or a Name`);
    }
    if (!seen.has(id)) {
      seen.add(id);
      out.push({ ID: id });
    }
  }
  return out;
}
