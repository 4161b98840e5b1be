import { COMMAND_VERSION } from "@cairn/fsm";
import type { Context, Hono } from "hono";
import { applyThenRead } from "../acl/io.js";
import { readBody, requireAcls } from "../acl/request.js";
import { tokenJson } from "../acl/shapes.js";
import { LoginRefusedError } from "../auth-methods/identity.js";
import { type AuthMethodIO, AuthMethodIOError } from "../auth-methods/io.js";
import { KeySetCache } from "../auth-methods/key-sets.js";
import { loginTokenSpec } from "../auth-methods/login.js";
import { loginBody } from "../auth-methods/schemas.js";
import { applyCommand } from "../http/apply.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, HttpError, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { singleNamespace } from "../middleware/namespace.js";

const v = COMMAND_VERSION;

/** POST /acl/login and POST /acl/logout. */
export function loginRoutes(ctx: RouteContext, app: Hono<ApiEnv>, io: AuthMethodIO): void {
  const keySets = new KeySetCache(io);
  route(app, "/login", { POST: (c) => login(ctx, c, io, keySets) });
  route(app, "/logout", { POST: (c) => logout(ctx, c) });
}

async function login(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  io: AuthMethodIO,
  keySets: KeySetCache,
): Promise<Response> {
  requireAcls(ctx);
  const body = await readBody(ctx, c, loginBody);
  const ns = singleNamespace(body.Namespace || c.var.namespace);
  const name = body.AuthMethod ?? "";
  if (name === "") throw badRequest("Invalid Login request: Missing AuthMethod");
  const view = ctx.backend.store.view();
  const method = view.authMethods().method(ns, name);
  if (!method) throw new HttpError(403, `ACL not found: auth method ${JSON.stringify(name)} not found`);
  const now = ctx.now();
  let spec: Awaited<ReturnType<typeof loginTokenSpec>>;
  try {
    spec = await loginTokenSpec(
      { method, bearerToken: body.BearerToken ?? "", meta: body.Meta ?? {} },
      {
        io,
        keySets,
        acl: view.acl(),
        methods: view.authMethods(),
        datacenter: ctx.datacenter,
        now,
        uuid: ctx.uuid,
      },
    );
  } catch (err) {
    if (err instanceof LoginRefusedError) {
      throw new HttpError(
        403,
        err.message === "" ? "Permission denied" : `Permission denied: ${err.message}`,
      );
    }
    if (err instanceof AuthMethodIOError) {
      ctx.logger.warn({ method: name, err: err.message }, "auth method login lookup failed");
      throw new HttpError(500, err.message);
    }
    throw err;
  }
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

/** Deletes the request's token if a login made it (Consul: anything else is refused). */
async function logout(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  requireAcls(ctx);
  const secret = c.var.token;
  if (secret === "") throw new HttpError(403, "ACL not found");
  const token = ctx.backend.store.view().acl().tokenBySecret(secret);
  if (!token) throw new HttpError(403, "ACL not found");
  if (token.AuthMethod === "") throw permissionDenied();
  await applyCommand(ctx, { v, type: "acl.token.delete", accessors: [token.AccessorID] });
  return jsonResponse(c, true);
}
