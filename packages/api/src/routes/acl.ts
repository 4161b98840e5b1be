import {
  GLOBAL_MANAGEMENT_POLICY_DESCRIPTION,
  GLOBAL_MANAGEMENT_POLICY_ID,
  GLOBAL_MANAGEMENT_POLICY_NAME,
  GLOBAL_MANAGEMENT_RULES,
} from "@cairn/acl";
import {
  type AclPolicySpec,
  type AclTokenSpec,
  ANONYMOUS_TOKEN_ACCESSOR,
  ANONYMOUS_TOKEN_SECRET,
  COMMAND_VERSION,
} from "@cairn/fsm";
import type { Context } from "hono";
import { Hono } from "hono";
import { readBootstrapResetIndex, removeBootstrapResetFile } from "../acl/bootstrap-reset.js";
import { requireAcls } from "../acl/request.js";
import { tokenJson } from "../acl/shapes.js";
import { applyCommand } from "../http/apply.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, HttpError } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { ReplicationStatus } from "../replication/status.js";
import { aclLegacyRoutes } from "./acl-legacy.js";
import { aclPolicyRoutes } from "./acl-policies.js";
import { aclTokenRoutes } from "./acl-tokens.js";
import { aclTranslateRoutes } from "./acl-translate.js";

/** /v1/acl: bootstrap, replication status, tokens, policies, roles, the ID-based API and rule translation. */
export function aclRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/bootstrap", { PUT: (c) => bootstrap(ctx, c) });
  route(app, "/replication", { GET: (c) => replication(ctx, c) });
  aclTokenRoutes(ctx, app);
  aclPolicyRoutes(ctx, app);
  aclLegacyRoutes(ctx, app);
  aclTranslateRoutes(ctx, app);
  return app;
}

/** The built-in policy every management token links to. */
export const GLOBAL_MANAGEMENT_POLICY: AclPolicySpec = {
  ID: GLOBAL_MANAGEMENT_POLICY_ID,
  Name: GLOBAL_MANAGEMENT_POLICY_NAME,
  Description: GLOBAL_MANAGEMENT_POLICY_DESCRIPTION,
  Rules: GLOBAL_MANAGEMENT_RULES,
  Datacenters: [],
  Namespace: "default",
};

/**
 * A management token (bootstrap, initial_management). Of the ID-based API's type `management`, as Consul
 * kept them, so `/acl/info`, `/acl/list` and `/acl/clone` see them.
 */
export function managementToken(accessor: string, secret: string, description: string): AclTokenSpec {
  return {
    AccessorID: accessor,
    SecretID: secret,
    Description: description,
    Policies: [{ ID: GLOBAL_MANAGEMENT_POLICY_ID }],
    Roles: [],
    ServiceIdentities: [],
    NodeIdentities: [],
    Local: false,
    AuthMethod: "",
    ExpirationTime: "",
    Namespace: "default",
    Type: "management",
    Rules: "",
  };
}

/** The anonymous token: no policies, and not an ID-based token. */
export function anonymousToken(): AclTokenSpec {
  return {
    ...managementToken(ANONYMOUS_TOKEN_ACCESSOR, ANONYMOUS_TOKEN_SECRET, "Anonymous Token"),
    Policies: [],
    Type: "",
  };
}

const BOOTSTRAP_REFUSED = "ACL bootstrap no longer allowed";

/**
 * Once per cluster: the first management token. Consul answers with the token and, for clients of the
 * ID-based API, its secret as `ID`. Later attempts are refused with the reset index; writing that index to
 * the `acl-bootstrap-reset` file allows one more.
 */
async function bootstrap(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  requireAcls(ctx);
  const refuse = (index: number) =>
    new HttpError(403, `Permission denied: ${BOOTSTRAP_REFUSED} (reset index: ${index})`);
  const done = ctx.backend.store.view().acl().bootstrapIndex;
  let resetIndex: number | undefined;
  if (done !== undefined) {
    resetIndex = readBootstrapResetIndex(ctx.aclBootstrapResetFile);
    if (resetIndex === undefined) throw refuse(done);
    // Consul's 500; ours a 400, as the operator wrote the wrong number.
    if (resetIndex !== done)
      throw badRequest(`Invalid bootstrap reset index (specified ${resetIndex}, reset index: ${done})`);
  }
  const token = managementToken(ctx.uuid(), ctx.uuid(), "Bootstrap Token (Global Management)");
  const now = ctx.now();
  try {
    await applyCommand(ctx, {
      v: COMMAND_VERSION,
      type: "acl.bootstrap",
      token,
      policy: GLOBAL_MANAGEMENT_POLICY,
      now,
      ...(resetIndex === undefined ? {} : { resetIndex }),
    });
  } catch (err) {
    if (err instanceof HttpError && err.message.startsWith(BOOTSTRAP_REFUSED)) {
      throw new HttpError(403, `Permission denied: ${err.message}`);
    }
    throw err;
  }
  if (resetIndex !== undefined) removeBootstrapResetFile(ctx.aclBootstrapResetFile);
  await ctx.backend.readBarrier("default");
  const acl = ctx.backend.store.view().acl();
  const t = acl.token(token.AccessorID);
  const out = t && { ID: t.SecretID, ...tokenJson(acl, t, "shown") };
  return jsonResponse(c, out);
}

/** The live status where replication runs (a secondary), else Consul's answer in the primary. */
async function replication(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const acl = requireAcls(ctx);
  if (ctx.replication)
    return jsonResponse(c, await ctx.replication(c.get("query").get("stale") !== undefined));
  return jsonResponse(c, new ReplicationStatus(false, acl.primaryDatacenter, false).json());
}
