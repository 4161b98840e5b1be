import type { Session, StateView } from "@cairn/fsm";
import { COMMAND_VERSION } from "@cairn/fsm";
import type { Context } from "hono";
import { Hono } from "hono";
import { filterAllowed } from "../authorizer.js";
import { applyCommand } from "../http/apply.js";
import type { ReadFn } from "../http/blocking-query.js";
import { blockingAnswer } from "../http/blocking-query.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, notFound, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { parseReadOptions } from "../http/read-options.js";
import { encodeResponse, jsonResponse, readJsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { decodeBody } from "../json/decode-body.js";
import { singleNamespace } from "../middleware/namespace.js";
import { sessionCreateBody } from "../schemas/session-create.js";
import { requireSession, requireSessionId } from "../session/id.js";
import { toSessionSpec } from "../session/spec.js";

/** /v1/session/{create,destroy,info,node,list,renew}. */
export function sessionRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/create", { PUT: (c) => create(ctx, c) });
  route(app, "/destroy/:id", { PUT: (c) => destroy(ctx, c) });
  route(app, "/renew/:id", { PUT: (c) => renew(ctx, c) });
  route(app, "/info/:id", {
    GET: (c) => {
      const id = requireSession(c.req.param("id") ?? "");
      const ns = c.get("namespace");
      return listRead(ctx, c, (v) => {
        const read = v.sessionGet(id, ns);
        return { ...read, value: read.value ? [read.value] : [] };
      });
    },
  });
  route(app, "/node/:node", {
    GET: (c) => {
      const node = c.req.param("node") ?? "";
      const ns = c.get("namespace");
      return listRead(ctx, c, (v) => v.sessionsForNode(node, ns));
    },
  });
  route(app, "/list", {
    GET: (c) => {
      const ns = c.get("namespace");
      return listRead(ctx, c, (v) => v.sessionList(ns));
    },
  });
  for (const path of ["/destroy", "/destroy/", "/renew", "/renew/", "/info", "/info/"]) {
    route(app, path, {
      [path.startsWith("/info") ? "GET" : "PUT"]: () => {
        throw badRequest("Missing session");
      },
    });
  }
  route(app, "/node", {
    GET: () => {
      throw badRequest("Missing node name");
    },
  });
  return app;
}

async function create(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const text = await readTextLimited(
    c,
    ctx.config.maxBodyBytes,
    (n) => `Request body too large (${n} bytes)`,
  );
  // No body, or a JSON null, means all defaults (Go decodes null into an untouched struct).
  const body = text.trim() === "" ? {} : (decodeBody(sessionCreateBody.nullable(), text) ?? {});

  const session = toSessionSpec(body, {
    id: ctx.uuid(),
    node: c.get("agentNode"),
    namespace: c.get("namespace"),
    ttlMinMs: ctx.config.sessionTtlMinMs,
  });
  singleNamespace(session.Namespace);
  if (
    ctx.authorizer.authorize(c.get("token"), session.Namespace, "session", session.Node, "write") !== "allow"
  ) {
    throw permissionDenied();
  }
  const created = await applyCommand(ctx, {
    v: COMMAND_VERSION,
    type: "session.create",
    session,
    now: ctx.now(),
  });
  if (typeof created !== "object" || !("ID" in created)) throw new Error("session create returned no ID");
  return jsonResponse(c, { ID: created.ID });
}

async function destroy(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const id = requireSessionId(c.req.param("id") ?? "");
  const ns = singleNamespace(c.get("namespace"));
  // Consul: session:write on the session's node.
  const session = ctx.backend.store.view().sessionGet(id, ns).value;
  if (session && ctx.authorizer.authorize(c.get("token"), ns, "session", session.Node, "write") !== "allow") {
    throw permissionDenied();
  }
  await applyCommand(ctx, { v: COMMAND_VERSION, type: "session.destroy", ns, id, now: ctx.now() });
  return jsonResponse(c, true);
}

async function renew(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const id = requireSession(c.req.param("id") ?? "");
  const ns = singleNamespace(c.get("namespace"));
  const mayRenew = (node: string) =>
    ctx.authorizer.authorize(c.get("token"), ns, "session", node, "write") === "allow";
  // Refuse before touching the leader's timer when the local replica already knows the session's node.
  const known = ctx.backend.store.view().sessionGet(id, ns).value;
  if (known && !mayRenew(known.Node)) throw permissionDenied();
  const session = await ctx.backend.renewSession(id, ns);
  if (session === null) throw notFound(`Session id '${id}' not found`);
  if (!mayRenew(session.Node)) throw permissionDenied();
  return jsonResponse(c, [session]);
}

/**
 * Session reads answer an array (empty, never null), filtered to the sessions the token may read. A read
 * that waits is parked (parked.ts): `read` must not hold the Context.
 */
function listRead(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  read: ReadFn<StateView, Session[]>,
): Promise<Response> {
  const opts = parseReadOptions(c.get("query"), ctx.random);
  const ns = c.get("namespace");
  const token = c.get("token");
  return blockingAnswer(ctx, c, opts, read, ({ result, meta }) => {
    const visible = filterAllowed(
      ctx.authorizer,
      token,
      ns,
      result,
      (s) => ({ type: "session", name: s.Node }),
      "read",
    );
    return readJsonResponse(encodeResponse(visible), meta);
  });
}
