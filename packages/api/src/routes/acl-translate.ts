import type { Context, Hono } from "hono";
import { ACL_NOT_FOUND, aclReadAnswer } from "../acl/io.js";
import { legacyRulesToModern } from "../acl/legacy-rules.js";
import { requireAclAccess } from "../acl/request.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { refusedRead } from "../http/error-handler.js";
import { badRequest } from "../http/errors.js";
import { route } from "../http/methods.js";
import { readMetaHeaders } from "../http/read-meta.js";
import type { RouteContext } from "../http/route-context.js";
import { singleNamespace } from "../middleware/namespace.js";

/**
 * /v1/acl/rules/translate (legacy rules in the body) and /v1/acl/rules/translate/:accessor (an ID-based
 * token's rules), as Consul 1.4-1.10 had them for migrating legacy tokens: the rules in today's syntax, as
 * text. acl:read is required only so the endpoint cannot be used freely, as in Consul.
 */
export function aclTranslateRoutes(ctx: RouteContext, app: Hono<ApiEnv>): void {
  route(app, "/rules/translate", { POST: (c) => translateBody(ctx, c) });
  route(app, "/rules/translate/", {
    GET: () => {
      throw badRequest("Missing token ID");
    },
  });
  route(app, "/rules/translate/:accessor", { GET: (c) => translateToken(ctx, c) });
}

async function translateBody(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  requireAclAccess(ctx, c, singleNamespace(c.get("namespace")), "read");
  const rules = await readTextLimited(
    c,
    ctx.config.maxBodyBytes,
    (n) => `Request body too large (${n} bytes)`,
  );
  return c.text(legacyRulesToModern(rules));
}

async function translateToken(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = singleNamespace(c.get("namespace"));
  requireAclAccess(ctx, c, ns, "read");
  const accessor = c.req.param("accessor") ?? "";
  return aclReadAnswer(
    ctx,
    c,
    (acl) => {
      const r = acl.readToken(accessor);
      return { ...r, value: r.value && r.value.Namespace === ns ? r.value.Rules : undefined };
    },
    (rules, meta) => {
      // Consul answers an unknown token as its token endpoints do.
      if (rules === undefined) return ACL_NOT_FOUND(meta);
      if (rules === "")
        return refusedRead(badRequest("The specified token does not have any rules set"), meta);
      return new Response(legacyRulesToModern(rules), {
        headers: { ...readMetaHeaders(meta), "Content-Type": "text/plain; charset=UTF-8" },
      });
    },
  );
}
