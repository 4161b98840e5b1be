import { AclRulesError, GLOBAL_MANAGEMENT_POLICY_ID, parseRules } from "@cairn/acl";
import {
  type AclPolicy,
  type AclPolicySpec,
  type AclRoleSpec,
  type AclStateReads,
  COMMAND_VERSION,
  type Read,
} from "@cairn/fsm";
import type { Context, Hono } from "hono";
import { ACL_NOT_FOUND, aclAnswer, applyThenRead, type Missing } from "../acl/io.js";
import { readBody, requireAclAccess, resolvePolicyLinks } from "../acl/request.js";
import { policyBody, roleBody } from "../acl/schemas.js";
import { policyJson, roleJson } from "../acl/shapes.js";
import { nodeIdentities, serviceIdentities } from "../acl/token-spec.js";
import { applyCommand } from "../http/apply.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, notFound } from "../http/errors.js";
import { route } from "../http/methods.js";
import { emptyNotFound, jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { singleNamespace } from "../middleware/namespace.js";

const v = COMMAND_VERSION;
/** Consul's policy and role names: alphanumerics, `-` and `_`, at most 128 characters. */
const NAME = /^[A-Za-z0-9\-_]{1,128}$/;

/** /v1/acl/policy(/:id, /name/:name), /acl/policies, /acl/role(/:id, /name/:name), /acl/roles. */
export function aclPolicyRoutes(ctx: RouteContext, app: Hono<ApiEnv>): void {
  route(app, "/policy", { PUT: (c) => putPolicy(ctx, c, undefined) });
  route(app, "/policy/name/:name", {
    GET: (c) => {
      const name = c.req.param("name") ?? "";
      return readOne(ctx, c, (acl, ns) => acl.readPolicyByName(name, ns), policyShape);
    },
  });
  route(app, "/policy/:id", {
    GET: (c) => {
      const id = c.req.param("id") ?? "";
      return readOne(ctx, c, (acl) => acl.readPolicy(id), policyShape);
    },
    PUT: (c) => putPolicy(ctx, c, c.req.param("id")),
    DELETE: (c) => del(ctx, c, "policy"),
  });
  route(app, "/policies", { GET: (c) => listPolicies(ctx, c) });
  route(app, "/role", { PUT: (c) => putRole(ctx, c, undefined) });
  route(app, "/role/name/:name", {
    GET: (c) => {
      const name = c.req.param("name") ?? "";
      return readOne(ctx, c, (acl, ns) => acl.readRoleByName(name, ns), roleJson, ROLE_MISSING);
    },
  });
  route(app, "/role/:id", {
    GET: (c) => {
      const id = c.req.param("id") ?? "";
      return readOne(ctx, c, (acl) => acl.readRole(id), roleJson, ROLE_MISSING);
    },
    PUT: (c) => putRole(ctx, c, c.req.param("id")),
    DELETE: (c) => del(ctx, c, "role"),
  });
  route(app, "/roles", { GET: (c) => listRoles(ctx, c) });
}

function checkName(name: string | null | undefined, what: string): string {
  if (!name) throw badRequest(`Name: the ${what} name is required`);
  if (!NAME.test(name)) throw badRequest(`Name: invalid ${what} name ${JSON.stringify(name)}`);
  return name;
}

/** Path ID and body ID must agree; update needs an existing record. */
function targetId(
  what: string,
  pathId: string | undefined,
  bodyId: string | null | undefined,
  uuid: () => string,
): string {
  if (pathId === undefined) {
    if (bodyId) throw badRequest(`ID: cannot specify the ID when creating a new ${what}`);
    return uuid();
  }
  if (bodyId && bodyId !== pathId)
    throw badRequest(`ID: the ${what} ID in the URL and in the body do not match`);
  return pathId;
}

async function putPolicy(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  pathId: string | undefined,
): Promise<Response> {
  const body = await readBody(ctx, c, policyBody);
  const ns = singleNamespace(body.Namespace || c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  const id = targetId("policy", pathId, body.ID, ctx.uuid);
  const acl = ctx.backend.store.view().acl();
  const existing = acl.policy(id);
  if (pathId !== undefined && (!existing || existing.Namespace !== ns)) {
    throw notFound(`Cannot find policy ${JSON.stringify(id)}`);
  }
  const name = checkName(body.Name, "policy");
  const rules = body.Rules ?? "";
  if (id === GLOBAL_MANAGEMENT_POLICY_ID && existing && rules !== existing.Rules) {
    throw badRequest("Rules: changing the rules of the builtin global-management policy is not permitted");
  }
  try {
    parseRules(rules, { namespace: ns });
  } catch (err) {
    if (err instanceof AclRulesError) throw badRequest(`Rules: ${err.message}`);
    throw err;
  }
  const spec: AclPolicySpec = {
    ID: id,
    Name: name,
    Description: body.Description ?? "",
    Rules: rules,
    Datacenters: body.Datacenters ?? [],
    Namespace: ns,
  };
  const op = existing ? "update" : "create";
  const out = await applyThenRead(ctx, { v, type: "acl.policy.set", op, policy: spec }, (a) => {
    const p = a.policy(id);
    return p && policyJson(p);
  });
  return jsonResponse(c, out);
}

async function putRole(ctx: RouteContext, c: Context<ApiEnv>, pathId: string | undefined): Promise<Response> {
  const body = await readBody(ctx, c, roleBody);
  const ns = singleNamespace(body.Namespace || c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  const id = targetId("role", pathId, body.ID, ctx.uuid);
  const acl = ctx.backend.store.view().acl();
  const existing = acl.role(id);
  if (pathId !== undefined && (!existing || existing.Namespace !== ns)) {
    throw notFound(`Cannot find role ${JSON.stringify(id)}`);
  }
  const spec: AclRoleSpec = {
    ID: id,
    Name: checkName(body.Name, "role"),
    Description: body.Description ?? "",
    Policies: resolvePolicyLinks(acl, body.Policies, ns),
    ServiceIdentities: serviceIdentities(body),
    NodeIdentities: nodeIdentities(body),
    Namespace: ns,
  };
  const op = existing ? "update" : "create";
  const out = await applyThenRead(ctx, { v, type: "acl.role.set", op, role: spec }, (a) => {
    const r = a.role(id);
    return r && roleJson(a, r);
  });
  return jsonResponse(c, out);
}

/** Consul's role endpoint answers a missing role with a bare 404 (its policy endpoint keeps 403). */
const ROLE_MISSING: Missing = emptyNotFound;

/**
 * Reads one policy or role in the request's namespace (a record in another namespace is not found).
 * A missing policy is answered as Consul does, as a missing token: 403 ACL not found.
 */
async function readOne<T extends { readonly Namespace: string }>(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  read: (acl: AclStateReads, ns: string) => Read<T | undefined>,
  shape: (acl: AclStateReads, record: T) => Record<string, unknown>,
  missing: Missing = ACL_NOT_FOUND,
): Promise<Response> {
  const ns = singleNamespace(c.get("namespace"));
  requireAclAccess(ctx, c, ns, "read");
  return aclAnswer(
    ctx,
    c,
    (acl) => {
      const r = read(acl, ns);
      return { ...r, value: r.value && r.value.Namespace === ns ? shape(acl, r.value) : undefined };
    },
    missing,
  );
}

const policyShape = (_: AclStateReads, p: AclPolicy) => policyJson(p);

async function del(ctx: RouteContext, c: Context<ApiEnv>, what: "policy" | "role"): Promise<Response> {
  const ns = singleNamespace(c.get("namespace"));
  requireAclAccess(ctx, c, ns, "write");
  const id = c.req.param("id") ?? "";
  const acl = ctx.backend.store.view().acl();
  const found = what === "policy" ? acl.policy(id) : acl.role(id);
  if (found && found.Namespace !== ns) return jsonResponse(c, false);
  if (what === "policy" && id === GLOBAL_MANAGEMENT_POLICY_ID) {
    throw badRequest("Delete operation not permitted on the builtin global-management policy");
  }
  await applyCommand(
    ctx,
    what === "policy" ? { v, type: "acl.policy.delete", id } : { v, type: "acl.role.delete", id },
  );
  return jsonResponse(c, true);
}

async function listPolicies(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = c.get("namespace");
  requireAclAccess(ctx, c, ns === "*" ? "default" : ns, "read");
  return aclAnswer(ctx, c, (acl) => {
    const r = acl.readPolicies(ns);
    return { ...r, value: r.value.map((p) => policyJson(p, false)) };
  });
}

async function listRoles(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const ns = c.get("namespace");
  requireAclAccess(ctx, c, ns === "*" ? "default" : ns, "read");
  const policy = c.get("query").get("policy") || undefined;
  return aclAnswer(ctx, c, (acl) => {
    const r = acl.readRoles(ns, policy);
    return { ...r, value: r.value.map((role) => roleJson(acl, role)) };
  });
}
