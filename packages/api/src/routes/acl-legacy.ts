import { GLOBAL_MANAGEMENT_POLICY_ID } from "@cairn/acl";
import { type AclStateReads, type AclToken, type AclTokenSpec, COMMAND_VERSION } from "@cairn/fsm";
import type { Context, Hono } from "hono";
import { aclAnswer, applyThenRead } from "../acl/io.js";
import { legacyRulesToModern } from "../acl/legacy-rules.js";
import { readBody, requireAcls } from "../acl/request.js";
import { type LegacyTokenBody, legacyTokenBody } from "../acl/schemas.js";
import { legacyTokenJson } from "../acl/shapes.js";
import { applyCommand } from "../http/apply.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";

const v = COMMAND_VERSION;

/**
 * The ID-based ACL API (spec 1) over the same token store: a legacy ID is a token's SecretID, Name its
 * Description; `management` links the global-management policy; a client's Rules are kept on the token
 * (in the legacy syntax, shown back as given) and enforced as an embedded policy.
 */
export function aclLegacyRoutes(ctx: RouteContext, app: Hono<ApiEnv>): void {
  route(app, "/create", { PUT: (c) => upsert(ctx, c, false) });
  route(app, "/update", { PUT: (c) => upsert(ctx, c, true) });
  route(app, "/destroy/:id", { PUT: (c) => destroy(ctx, c) });
  route(app, "/clone/:id", { PUT: (c) => clone(ctx, c) });
  route(app, "/info/:id", { GET: (c) => info(ctx, c) });
  route(app, "/list", { GET: (c) => list(ctx, c) });
}

/** The ID-based API's `management` privilege. */
function requireManagement(ctx: RouteContext, c: Context<ApiEnv>): void {
  if (!requireAcls(ctx).forToken(c.get("token")).isManagement()) throw permissionDenied();
}

function legacySpec(body: LegacyTokenBody, accessor: string, secret: string): AclTokenSpec {
  const type = body.Type || "client";
  if (type !== "client" && type !== "management") throw badRequest(`Type: invalid ACL type "${type}"`);
  const rules = body.Rules ?? "";
  legacyRulesToModern(rules);
  return {
    AccessorID: accessor,
    SecretID: secret,
    Description: body.Name ?? "",
    Policies: type === "management" ? [{ ID: GLOBAL_MANAGEMENT_POLICY_ID }] : [],
    Roles: [],
    ServiceIdentities: [],
    NodeIdentities: [],
    Local: false,
    AuthMethod: "",
    ExpirationTime: "",
    Namespace: "default",
    Type: type,
    Rules: type === "management" ? "" : rules,
  };
}

async function upsert(ctx: RouteContext, c: Context<ApiEnv>, update: boolean): Promise<Response> {
  requireManagement(ctx, c);
  const body = await readBody(ctx, c, legacyTokenBody);
  if (update && !body.ID) throw badRequest("ID: an ACL ID is required to update");
  const secret = body.ID || ctx.uuid();
  const existing = ctx.backend.store.view().acl().tokenBySecret(secret);
  if (existing && !update) throw badRequest("ID: an ACL with this ID already exists");
  if (existing && existing.Type === "") throw badRequest("ID: the token is not an ID-based ACL token");
  const spec = legacySpec(body, existing?.AccessorID ?? ctx.uuid(), secret);
  const op = existing ? "update" : "create";
  await applyCommand(ctx, { v, type: "acl.token.set", op, token: spec, now: ctx.now() });
  return jsonResponse(c, { ID: secret });
}

function legacyToken(acl: AclStateReads, id: string): AclToken | undefined {
  const t = acl.tokenBySecret(id);
  return t && t.Type !== "" ? t : undefined;
}

async function destroy(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  requireManagement(ctx, c);
  const t = legacyToken(ctx.backend.store.view().acl(), c.req.param("id") ?? "");
  if (t) await applyCommand(ctx, { v, type: "acl.token.delete", accessors: [t.AccessorID] });
  return jsonResponse(c, true);
}

async function clone(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  requireManagement(ctx, c);
  const source = legacyToken(ctx.backend.store.view().acl(), c.req.param("id") ?? "");
  if (!source) throw badRequest("ACL not found");
  const { CreateTime: _t, Hash: _h, CreateIndex: _c, ModifyIndex: _m, ...rest } = source;
  const spec = { ...rest, AccessorID: ctx.uuid(), SecretID: ctx.uuid() };
  const out = await applyThenRead(
    ctx,
    { v, type: "acl.token.set", op: "create", token: spec, now: ctx.now() },
    () => ({
      ID: spec.SecretID,
    }),
  );
  return jsonResponse(c, out);
}

async function info(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  requireAcls(ctx);
  const id = c.req.param("id") ?? "";
  return aclAnswer(ctx, c, (acl) => {
    const r = acl.readTokenBySecret(id);
    const t = r.value && r.value.Type !== "" ? r.value : undefined;
    return { ...r, value: t ? [legacyTokenJson(t)] : [] };
  });
}

async function list(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  requireManagement(ctx, c);
  return aclAnswer(ctx, c, (acl) => {
    const r = acl.readTokens({ ns: "*" });
    return { ...r, value: r.value.filter((t) => t.Type !== "").map(legacyTokenJson) };
  });
}
