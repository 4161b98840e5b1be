import { COMMAND_VERSION, DEFAULT_NAMESPACE_NAME, type NamespaceSpec } from "@cairn/fsm";
import type { Context } from "hono";
import { Hono } from "hono";
import { aclAnswer, applyThenRead } from "../acl/io.js";
import { readBody, resolvePolicyLinks, resolveRoleLinks } from "../acl/request.js";
import { type NamespaceBody, namespaceBody } from "../acl/schemas.js";
import { namespaceJson } from "../acl/shapes.js";
import { applyCommand } from "../http/apply.js";
import type { ApiEnv } from "../http/env.js";
import { refusedRead } from "../http/error-handler.js";
import { badRequest, notFound, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";

const v = COMMAND_VERSION;
const DNS_LABEL = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

/** /v1/namespace (PUT), /v1/namespace/:name (GET, PUT, DELETE). */
export function namespaceRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/", { PUT: (c) => put(ctx, c, undefined) });
  route(app, "/:name", {
    GET: (c) => read(ctx, c),
    PUT: (c) => put(ctx, c, c.req.param("name")),
    DELETE: (c) => del(ctx, c),
  });
  return app;
}

/** /v1/namespaces: every namespace the token may see. */
export function namespaceListRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/", { GET: (c) => list(ctx, c) });
  return app;
}

function requireOperator(ctx: RouteContext, token: string, access: "read" | "write"): boolean {
  return ctx.authorizer.authorize(token, DEFAULT_NAMESPACE_NAME, "operator", "", access) === "allow";
}

/** Spec 1: operator:read, or any access inside the namespace. */
function mayRead(ctx: RouteContext, token: string, name: string): boolean {
  if (ctx.acl === undefined) return true;
  return requireOperator(ctx, token, "read") || ctx.acl.forToken(token).mayReadNamespace(name);
}

function spec(ctx: RouteContext, name: string, body: NamespaceBody): NamespaceSpec {
  const acl = ctx.backend.store.view().acl();
  const out: { -readonly [K in keyof NamespaceSpec]: NamespaceSpec[K] } = {
    Name: name,
    Description: body.Description ?? "",
  };
  if (body.ACLs) {
    // Default policies and roles live in the default namespace and apply in this one.
    out.ACLs = {
      PolicyDefaults: resolvePolicyLinks(
        acl,
        body.ACLs.PolicyDefaults,
        DEFAULT_NAMESPACE_NAME,
        "ACLs.PolicyDefaults",
      ),
      RoleDefaults: resolveRoleLinks(
        acl,
        body.ACLs.RoleDefaults,
        DEFAULT_NAMESPACE_NAME,
        "ACLs.RoleDefaults",
      ),
    };
  }
  if (body.Meta && Object.keys(body.Meta).length > 0) out.Meta = body.Meta;
  return out;
}

async function put(ctx: RouteContext, c: Context<ApiEnv>, pathName: string | undefined): Promise<Response> {
  const body = await readBody(ctx, c, namespaceBody);
  if (pathName !== undefined && body.Name && body.Name !== pathName) {
    throw badRequest("Name: the namespace name in the URL and in the body do not match");
  }
  const name = pathName ?? body.Name ?? "";
  if (name === "") throw badRequest("Name: a namespace name is required");
  if (!DNS_LABEL.test(name))
    throw badRequest(`Name: ${JSON.stringify(name)} is not a valid DNS hostname label`);
  if (!requireOperator(ctx, c.get("token"), "write")) throw permissionDenied();
  const op = pathName === undefined ? "create" : "update";
  const out = await applyThenRead(
    ctx,
    { v, type: "namespace.set", op, namespace: spec(ctx, name, body) },
    (acl) => {
      const n = acl.namespace(name);
      return n && namespaceJson(acl, n);
    },
  );
  return jsonResponse(c, out);
}

async function read(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const name = c.req.param("name") ?? "";
  if (!mayRead(ctx, c.get("token"), name)) throw permissionDenied();
  return aclAnswer(
    ctx,
    c,
    (acl) => {
      const r = acl.readNamespace(name);
      return { ...r, value: r.value && namespaceJson(acl, r.value) };
    },
    (meta) => refusedRead(notFound(`Namespace not found: ${JSON.stringify(name)}`), meta),
  );
}

async function del(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  if (!requireOperator(ctx, c.get("token"), "write")) throw permissionDenied();
  const name = c.req.param("name") ?? "";
  await applyCommand(ctx, { v, type: "namespace.delete", name, now: ctx.now() });
  return c.body(null, 200);
}

async function list(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const token = c.get("token");
  return aclAnswer(ctx, c, (acl) => {
    const r = acl.readNamespaces();
    const visible = r.value.filter((n) => mayRead(ctx, token, n.Name));
    return { ...r, value: visible.map((n) => namespaceJson(acl, n, n.Name === DEFAULT_NAMESPACE_NAME)) };
  });
}
