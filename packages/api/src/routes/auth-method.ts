import { COMMAND_VERSION } from "@cairn/fsm";
import type { Context } from "hono";
import { Hono } from "hono";
import { aclAnswer } from "../acl/io.js";
import { readBody, requireAclAccess } from "../acl/request.js";
import type { AuthMethodIO } from "../auth-methods/io.js";
import { authMethodJson, authMethodSpec } from "../auth-methods/method-spec.js";
import { authMethodBody } from "../auth-methods/schemas.js";
import { applyCommand } from "../http/apply.js";
import type { ApiEnv } from "../http/env.js";
import { refusedRead } from "../http/error-handler.js";
import { badRequest, notFound } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { singleNamespace } from "../middleware/namespace.js";
import { bindingRuleRoutes } from "./binding-rule.js";
import { loginRoutes } from "./login.js";

const v = COMMAND_VERSION;

/**
 * /v1/acl/auth-method(s), /v1/acl/binding-rule(s), /v1/acl/login and /v1/acl/logout (spec 1), mounted
 * beside the other /v1/acl routes. `io` reaches the Kubernetes API and JWKS endpoints at login.
 */
export function authMethodRoutes(ctx: RouteContext, io: AuthMethodIO): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/auth-method", { PUT: (c) => write(ctx, c, "") });
  route(app, "/auth-method/:name", {
    GET: (c) => read(ctx, c),
    PUT: (c) => write(ctx, c, c.req.param("name") ?? ""),
    DELETE: (c) => del(ctx, c),
  });
  route(app, "/auth-methods", { GET: (c) => list(ctx, c) });
  bindingRuleRoutes(ctx, app);
  loginRoutes(ctx, app, io);
  return app;
}

async function write(ctx: RouteContext, c: Context<ApiEnv>, pathName: string): Promise<Response> {
  const body = await readBody(ctx, c, authMethodBody);
  const ns = singleNamespace(body.Namespace || c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  if (pathName !== "" && body.Name && body.Name !== pathName) {
    throw badRequest("AuthMethod Name in URL and payload do not match");
  }
  const name = body.Name || pathName;
  const existing = ctx.backend.store.view().authMethods().method(ns, name);
  const spec = authMethodSpec({ ...body, Name: name }, existing, ns);
  await applyCommand(ctx, { v, type: "acl.auth-method.set", method: spec });
  await ctx.backend.readBarrier("default");
  const stored = ctx.backend.store.view().authMethods().method(ns, name);
  return jsonResponse(c, stored && authMethodJson(stored, "full"));
}

async function read(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = singleNamespace(c.get("namespace"));
  requireAclAccess(ctx, c, ns, "read");
  const name = c.req.param("name") ?? "";
  return aclAnswer(
    ctx,
    c,
    (_acl, view) => {
      const r = view.authMethods().readMethod(ns, name);
      return { ...r, value: r.value && authMethodJson(r.value, "full") };
    },
    (meta) => refusedRead(notFound(`auth method ${JSON.stringify(name)} not found`), meta),
  );
}

async function del(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = singleNamespace(c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  const name = c.req.param("name") ?? "";
  if (ctx.backend.store.view().authMethods().method(ns, name)) {
    await applyCommand(ctx, { v, type: "acl.auth-method.delete", ns, name });
  }
  return jsonResponse(c, true);
}

async function list(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = c.get("namespace");
  requireAclAccess(ctx, c, ns === "*" ? "default" : ns, "read");
  return aclAnswer(ctx, c, (_acl, view) => {
    const r = view.authMethods().readMethods(ns);
    return { ...r, value: r.value.map((m) => authMethodJson(m, "stub")) };
  });
}
