import { type AclTokenSpec, COMMAND_VERSION } from "@cairn/fsm";
import type { Context, Hono } from "hono";
import { applyThenRead } from "../acl/io.js";
import { readBody, requireAcls } from "../acl/request.js";
import { tokenJson } from "../acl/shapes.js";
import { ConfigError, validateOidcConfig } from "../auth-methods/config.js";
import { LoginRefusedError } from "../auth-methods/identity.js";
import { type AuthMethodIO, AuthMethodIOError } from "../auth-methods/io.js";
import { KeySetCache } from "../auth-methods/key-sets.js";
import { loginTokenSpec, tokenSpecFor } from "../auth-methods/login.js";
import { OidcRequestError, oidcAuthUrl, oidcCallback } from "../auth-methods/oidc.js";
import { OidcStates } from "../auth-methods/oidc-states.js";
import { loginBody, oidcAuthUrlBody, oidcCallbackBody } from "../auth-methods/schemas.js";
import { applyCommand } from "../http/apply.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, HttpError, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { singleNamespace } from "../middleware/namespace.js";

const v = COMMAND_VERSION;

/** POST /acl/login, /acl/logout, /acl/oidc/auth-url and /acl/oidc/callback. */
export function loginRoutes(ctx: RouteContext, app: Hono<ApiEnv>, io: AuthMethodIO): void {
  const keySets = new KeySetCache(io);
  // Pending OIDC logins live on this server only, as in Consul: the callback must come back here.
  const states = new OidcStates();
  route(app, "/login", { POST: (c) => login(ctx, c, io, keySets) });
  route(app, "/logout", { POST: (c) => logout(ctx, c) });
  route(app, "/oidc/auth-url", { POST: (c) => authUrl(ctx, c, keySets, states) });
  route(app, "/oidc/callback", { POST: (c) => callback(ctx, c, io, keySets, states) });
}

/** The auth method a login names, in the body's namespace or the request's; 403 when there is none. */
function methodOf(ctx: RouteContext, c: Context<ApiEnv>, bodyNs: string | null | undefined, name: string) {
  if (name === "") throw badRequest("Invalid Login request: Missing AuthMethod");
  const ns = singleNamespace(bodyNs || c.get("namespace"));
  const method = ctx.backend.store.view().authMethods().method(ns, name);
  if (!method) throw new HttpError(403, `ACL not found: auth method ${JSON.stringify(name)} not found`);
  return method;
}

/** Runs a login step, turning refusals and provider trouble into Consul's answers. */
async function refusals<T>(ctx: RouteContext, name: string, step: () => Promise<T> | T): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof LoginRefusedError) {
      throw new HttpError(
        403,
        err.message === "" ? "Permission denied" : `Permission denied: ${err.message}`,
      );
    }
    if (err instanceof OidcRequestError || err instanceof ConfigError) throw badRequest(err.message);
    if (err instanceof AuthMethodIOError) {
      ctx.logger.warn({ method: name, err: err.message }, "auth method login lookup failed");
      throw new HttpError(500, err.message);
    }
    throw err;
  }
}

/** Stores the token a login earned and answers with it (secret shown). */
async function issue(ctx: RouteContext, c: Context<ApiEnv>, spec: AclTokenSpec, now: number) {
  // Global tokens belong to the primary (a secondary's would be deleted by its next replication), as
  // Consul refuses them from a global auth method outside the primary.
  if (!spec.Local && ctx.primaryDatacenter !== ctx.datacenter) {
    throw badRequest("creating global tokens via auth methods is only permitted in the primary datacenter");
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

async function login(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  io: AuthMethodIO,
  keySets: KeySetCache,
): Promise<Response> {
  requireAcls(ctx);
  const body = await readBody(ctx, c, loginBody);
  const name = body.AuthMethod ?? "";
  const method = methodOf(ctx, c, body.Namespace, name);
  const view = ctx.backend.store.view();
  const now = ctx.now();
  const spec = await refusals(ctx, name, () =>
    loginTokenSpec(
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
    ),
  );
  return issue(ctx, c, spec, now);
}

function oidcMethod(ctx: RouteContext, c: Context<ApiEnv>, ns: string | null | undefined, name: string) {
  const method = methodOf(ctx, c, ns, name);
  if (method.Type !== "oidc") {
    throw badRequest(`OIDC login is incompatible with type ${JSON.stringify(method.Type)}`);
  }
  return method;
}

/** POST /acl/oidc/auth-url: where to send the browser, remembering the login's state here. */
async function authUrl(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  keySets: KeySetCache,
  states: OidcStates,
): Promise<Response> {
  requireAcls(ctx);
  const body = await readBody(ctx, c, oidcAuthUrlBody);
  const name = body.AuthMethod ?? "";
  const method = oidcMethod(ctx, c, body.Namespace, name);
  const url = await refusals(ctx, name, () =>
    oidcAuthUrl(
      keySets,
      states,
      validateOidcConfig(method.Config),
      {
        methodName: method.Name,
        methodNamespace: method.Namespace,
        redirectUri: body.RedirectURI ?? "",
        clientNonce: body.ClientNonce ?? "",
        meta: body.Meta ?? {},
      },
      ctx.now(),
    ),
  );
  return jsonResponse(c, { AuthURL: url });
}

/** POST /acl/oidc/callback: the provider's code for a token, through the method's binding rules. */
async function callback(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  io: AuthMethodIO,
  keySets: KeySetCache,
  states: OidcStates,
): Promise<Response> {
  requireAcls(ctx);
  const body = await readBody(ctx, c, oidcCallbackBody);
  const name = body.AuthMethod ?? "";
  const method = oidcMethod(ctx, c, body.Namespace, name);
  const now = ctx.now();
  const spec = await refusals(ctx, name, async () => {
    const { identity, meta } = await oidcCallback(
      io,
      keySets,
      states,
      validateOidcConfig(method.Config),
      {
        methodName: method.Name,
        methodNamespace: method.Namespace,
        state: body.State ?? "",
        code: body.Code ?? "",
        clientNonce: body.ClientNonce ?? "",
      },
      now,
      ctx.logger,
    );
    const view = ctx.backend.store.view();
    return tokenSpecFor(method, identity, meta, {
      acl: view.acl(),
      methods: view.authMethods(),
      datacenter: ctx.datacenter,
      uuid: ctx.uuid,
    });
  });
  return issue(ctx, c, spec, now);
}

/** Deletes the request's token if a login made it (Consul: anything else is refused). */
async function logout(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  requireAcls(ctx);
  const secret = c.get("token");
  if (secret === "") throw new HttpError(403, "ACL not found");
  const token = ctx.backend.store.view().acl().tokenBySecret(secret);
  if (!token) throw new HttpError(403, "ACL not found");
  if (token.AuthMethod === "") throw permissionDenied();
  await applyCommand(ctx, { v, type: "acl.token.delete", accessors: [token.AccessorID] });
  return jsonResponse(c, true);
}
