import { type AclToken, ANONYMOUS_TOKEN_ACCESSOR, COMMAND_VERSION } from "@cairn/fsm";
import type { Context, Hono } from "hono";
import { ACL_NOT_FOUND, aclAnswer, applyThenRead } from "../acl/io.js";
import { mayWriteAcls, readBody, requireAclAccess, requireAcls } from "../acl/request.js";
import { cloneBody, tokenBody } from "../acl/schemas.js";
import { tokenJson } from "../acl/shapes.js";
import { newTokenSpec, updatedTokenSpec } from "../acl/token-spec.js";
import { applyCommand } from "../http/apply.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, notFound } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { singleNamespace } from "../middleware/namespace.js";

const v = COMMAND_VERSION;

/** /v1/acl/token, /acl/token/self, /acl/token/:AccessorID(/clone), /acl/tokens (spec 1). */
export function aclTokenRoutes(ctx: RouteContext, app: Hono<ApiEnv>): void {
  route(app, "/token", { PUT: (c) => create(ctx, c) });
  route(app, "/token/self", { GET: (c) => self(ctx, c) });
  route(app, "/token/:id/clone", { PUT: (c) => clone(ctx, c) });
  route(app, "/token/:id", {
    GET: (c) => read(ctx, c),
    PUT: (c) => update(ctx, c),
    DELETE: (c) => del(ctx, c),
  });
  route(app, "/tokens", { GET: (c) => list(ctx, c) });
}

async function create(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const body = await readBody(ctx, c, tokenBody);
  const ns = singleNamespace(body.Namespace || c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  const now = ctx.now();
  const spec = newTokenSpec({ body, ns, now, uuid: ctx.uuid, acl: ctx.backend.store.view().acl() });
  const out = await applyThenRead(
    ctx,
    { v, type: "acl.token.set", op: "create", token: spec, now },
    (acl) => {
      const t = acl.token(spec.AccessorID);
      return t && tokenJson(acl, t, "shown");
    },
  );
  return jsonResponse(c, out);
}

function storedToken(ctx: RouteContext, c: Context<ApiEnv>, ns: string): AclToken {
  const id = c.req.param("id") ?? "";
  const t = ctx.backend.store.view().acl().token(id);
  if (!t || t.Namespace !== ns) throw notFound(`Cannot find token ${JSON.stringify(id)}`);
  return t;
}

async function update(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const body = await readBody(ctx, c, tokenBody);
  const ns = singleNamespace(body.Namespace || c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  const stored = storedToken(ctx, c, ns);
  const acl = ctx.backend.store.view().acl();
  const spec = updatedTokenSpec(stored, { body, ns, now: ctx.now(), uuid: ctx.uuid, acl });
  const out = await applyThenRead(
    ctx,
    { v, type: "acl.token.set", op: "update", token: spec, now: ctx.now() },
    (a) => {
      const t = a.token(spec.AccessorID);
      return t && tokenJson(a, t, "shown");
    },
  );
  return jsonResponse(c, out);
}

async function clone(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const body = await readBody(ctx, c, cloneBody);
  const ns = singleNamespace(body.Namespace || c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  const source = storedToken(ctx, c, ns);
  if (source.AuthMethod !== "") throw badRequest("Cannot clone a token created from an auth method");
  const now = ctx.now();
  const { CreateTime: _t, Hash: _h, CreateIndex: _c, ModifyIndex: _m, ...rest } = source;
  const spec = { ...rest, AccessorID: ctx.uuid(), SecretID: ctx.uuid(), Description: body.Description ?? "" };
  const out = await applyThenRead(
    ctx,
    { v, type: "acl.token.set", op: "create", token: spec, now },
    (acl) => {
      const t = acl.token(spec.AccessorID);
      return t && tokenJson(acl, t, "shown");
    },
  );
  return jsonResponse(c, out);
}

async function del(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = singleNamespace(c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  const id = c.req.param("id") ?? "";
  const t = ctx.backend.store.view().acl().token(id);
  if (t && t.Namespace !== ns) return jsonResponse(c, false);
  if (t?.AccessorID === ANONYMOUS_TOKEN_ACCESSOR)
    throw badRequest("Delete operation not permitted on the anonymous token");
  if (t && t.SecretID === c.get("token"))
    throw badRequest("Deletion of the request's authorization token is not permitted");
  await applyCommand(ctx, { v, type: "acl.token.delete", accessors: [id] });
  return jsonResponse(c, true);
}

async function read(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = singleNamespace(c.get("namespace"));
  requireAclAccess(ctx, c, ns, "read");
  const id = c.req.param("id") ?? "";
  // As Consul: the secret is shown to callers that may write ACLs, hidden from readers.
  const secret = mayWriteAcls(ctx, c.get("token"), ns) ? "shown" : "hidden";
  // Consul answers a missing token as an unknown one: 403 ACL not found.
  return aclAnswer(
    ctx,
    c,
    (acl) => {
      const r = acl.readToken(id);
      const t = r.value && r.value.Namespace === ns ? r.value : undefined;
      return { ...r, value: t && tokenJson(acl, t, secret) };
    },
    ACL_NOT_FOUND,
  );
}

async function self(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const enforcer = requireAcls(ctx);
  const secret = enforcer.effectiveSecret(c.get("token"));
  // Resolving refuses unknown and expired secrets with 403 `ACL not found`, as Consul.
  enforcer.forToken(c.get("token"));
  return aclAnswer(
    ctx,
    c,
    (acl) => {
      const r = acl.readTokenBySecret(secret);
      return { ...r, value: r.value && tokenJson(acl, r.value, "shown") };
    },
    ACL_NOT_FOUND,
  );
}

async function list(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = c.get("namespace");
  requireAclAccess(ctx, c, ns === "*" ? "default" : ns, "read");
  // Secrets are shown per token namespace, where the caller may write ACLs (a wildcard list spans several).
  const writable = new Map<string, boolean>();
  const token = c.get("token");
  const secretIn = (tokenNs: string) => {
    let may = writable.get(tokenNs);
    if (may === undefined) {
      may = mayWriteAcls(ctx, token, tokenNs);
      writable.set(tokenNs, may);
    }
    return may ? "shown" : "hidden";
  };
  const q = c.get("query");
  const filter = {
    ns,
    policy: q.get("policy") || undefined,
    role: q.get("role") || undefined,
    authMethod: q.get("authmethod") || undefined,
    authMethodNs: q.get("authmethod-ns") || undefined,
  };
  return aclAnswer(ctx, c, (acl) => {
    const r = acl.readTokens(filter);
    return { ...r, value: r.value.map((t) => tokenJson(acl, t, secretIn(t.Namespace), true)) };
  });
}
