import { COMMAND_VERSION } from "@cairn/fsm";
import type { Context, Hono } from "hono";
import { aclAnswer } from "../acl/io.js";
import { isUuid, readBody, requireAclAccess } from "../acl/request.js";
import { bindingRuleJson, bindingRuleSpec } from "../auth-methods/rule-spec.js";
import { bindingRuleBody } from "../auth-methods/schemas.js";
import { applyCommand } from "../http/apply.js";
import type { ApiEnv } from "../http/env.js";
import { refusedRead } from "../http/error-handler.js";
import { badRequest, notFound } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { singleNamespace } from "../middleware/namespace.js";

const v = COMMAND_VERSION;

/** /acl/binding-rule, /acl/binding-rule/:id, /acl/binding-rules?authmethod= */
export function bindingRuleRoutes(ctx: RouteContext, app: Hono<ApiEnv>): void {
  route(app, "/binding-rule", { PUT: (c) => write(ctx, c, "") });
  route(app, "/binding-rule/:id", {
    GET: (c) => read(ctx, c),
    PUT: (c) => write(ctx, c, c.req.param("id") ?? ""),
    DELETE: (c) => del(ctx, c),
  });
  route(app, "/binding-rules", { GET: (c) => list(ctx, c) });
}

async function write(ctx: RouteContext, c: Context<ApiEnv>, pathId: string): Promise<Response> {
  const body = await readBody(ctx, c, bindingRuleBody);
  const ns = singleNamespace(body.Namespace || c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  if (pathId !== "" && body.ID && body.ID !== pathId) {
    throw badRequest("BindingRule ID in URL and payload do not match");
  }
  const reads = ctx.backend.store.view().authMethods();
  let id = body.ID || pathId;
  let existing: ReturnType<typeof reads.rule>;
  if (id === "") {
    id = ctx.uuid();
  } else {
    if (!isUuid(id)) throw badRequest("Binding Rule ID invalid UUID");
    existing = reads.rule(id);
    if (!existing || existing.Namespace !== ns) throw notFound(`cannot find binding rule ${id}`);
  }
  const spec = bindingRuleSpec(body, id, existing, ns, (name) => reads.method(ns, name));
  await applyCommand(ctx, {
    v,
    type: "acl.binding-rule.set",
    op: existing ? "update" : "create",
    rule: spec,
  });
  await ctx.backend.readBarrier("default");
  const stored = ctx.backend.store.view().authMethods().rule(id);
  return jsonResponse(c, stored && bindingRuleJson(stored));
}

async function read(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = singleNamespace(c.get("namespace"));
  requireAclAccess(ctx, c, ns, "read");
  const id = c.req.param("id") ?? "";
  return aclAnswer(
    ctx,
    c,
    (_acl, view) => {
      const r = view.authMethods().readRule(id);
      const rule = r.value && r.value.Namespace === ns ? r.value : undefined;
      return { ...r, value: rule && bindingRuleJson(rule) };
    },
    (meta) => refusedRead(notFound(`binding rule ${JSON.stringify(id)} not found`), meta),
  );
}

async function del(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = singleNamespace(c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  const id = c.req.param("id") ?? "";
  const rule = ctx.backend.store.view().authMethods().rule(id);
  if (rule && rule.Namespace === ns) await applyCommand(ctx, { v, type: "acl.binding-rule.delete", id });
  return jsonResponse(c, true);
}

async function list(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = c.get("namespace");
  requireAclAccess(ctx, c, ns === "*" ? "default" : ns, "read");
  const method = c.get("query").get("authmethod") || undefined;
  return aclAnswer(ctx, c, (_acl, view) => {
    const r = view.authMethods().readRules(ns, method);
    return { ...r, value: r.value.map(bindingRuleJson) };
  });
}
