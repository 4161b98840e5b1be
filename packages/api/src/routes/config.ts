import { COMMAND_VERSION } from "@cairn/fsm";
import { JsonSyntaxError, readJson } from "@cairn/json";
import type { Context } from "hono";
import { Hono } from "hono";
import { configEntryPrivilege } from "../config-entries/acl.js";
import { type ProposedChange, validateInGraph } from "../config-entries/graph-check.js";
import { parseConfigEntry, requireConfigEntryKind } from "../config-entries/parse.js";
import { applyCommand } from "../http/apply.js";
import { blockingAnswer } from "../http/blocking-query.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { refusedRead } from "../http/error-handler.js";
import { badRequest, notFound, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { parseReadOptions } from "../http/read-options.js";
import { encodeResponse, jsonResponse, readJsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { DEFAULT_NAMESPACE, singleNamespace } from "../middleware/namespace.js";
import { trustDomainFor } from "../query/trust-domain.js";
import { toRaftIndex } from "../schemas/scalars.js";

/** /v1/config: PUT applies an entry; /v1/config/:kind lists; /v1/config/:kind/:name reads and deletes. */
export function configRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/", { PUT: (c) => apply(ctx, c) });
  route(app, "/:kind", { GET: (c) => list(ctx, c) });
  // Names may hold slashes: everything after the kind is the name, as Consul splits the path.
  route(app, "/:kind/:name{.+}", { GET: (c) => get(ctx, c), DELETE: (c) => del(ctx, c) });
  return app;
}

function mayAccess(
  ctx: RouteContext,
  token: string,
  ns: string,
  kind: string,
  name: string,
  access: "read" | "write",
) {
  const privilege = configEntryPrivilege(kind, name, access);
  return (
    privilege === undefined ||
    ctx.authorizer.authorize(token, ns, privilege.type, privilege.name, privilege.access) === "allow"
  );
}

/** proxy-defaults is one cluster-wide entry: it always lives in the default namespace. */
function entryNamespace(kind: string, requested: string): string {
  return kind === "proxy-defaults" ? DEFAULT_NAMESPACE : singleNamespace(requested);
}

function casParam(c: Context<ApiEnv>): number | undefined {
  const raw = c.get("query").get("cas");
  // Consul reads an empty cas as none.
  if (raw === undefined || raw === "") return undefined;
  const cas = c.get("query").uint64("cas");
  return cas === undefined ? undefined : toRaftIndex(cas);
}

async function apply(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const cas = casParam(c);
  const text = await readTextLimited(
    c,
    ctx.config.maxBodyBytes,
    (n) => `Request body too large (${n} bytes)`,
  );
  let raw: ReturnType<typeof readJson>;
  try {
    raw = readJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw badRequest(`Request decoding failed: ${err.message}`);
    throw err;
  }
  const entry = parseConfigEntry(raw);
  const ns = entryNamespace(entry.Kind, entry.Namespace || c.get("namespace"));
  if (!mayAccess(ctx, c.get("token"), ns, entry.Kind, entry.Name, "write")) throw permissionDenied();
  const { Namespace: _, ...body } = entry;
  checkGraph(ctx, { kind: entry.Kind, name: entry.Name, ns, entry: body });
  const result = await applyCommand(ctx, {
    v: COMMAND_VERSION,
    type: "config-entry.set",
    ns,
    entry: body,
    ...(cas === undefined ? {} : { cas }),
  });
  return jsonResponse(c, result);
}

/** Refuses, before it is applied, a change that would leave a discovery chain uncompilable. */
function checkGraph(ctx: RouteContext, change: ProposedChange): void {
  validateInGraph(ctx.backend.store.view(), change, {
    datacenter: ctx.datacenter,
    trustDomain: trustDomainFor(ctx.datacenter),
  });
}

/** One entry; a read that waits is parked (parked.ts), so nothing in the answer's making holds the Context. */
async function get(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const kind = c.req.param("kind") ?? "";
  const name = c.req.param("name") ?? "";
  requireConfigEntryKind(kind);
  const ns = entryNamespace(kind, c.get("namespace"));
  if (!mayAccess(ctx, c.get("token"), ns, kind, name, "read")) throw permissionDenied();
  const opts = parseReadOptions(c.get("query"), ctx.random);
  return blockingAnswer(
    ctx,
    c,
    opts,
    (v) => v.configEntry(kind, name, ns),
    ({ result, meta }) =>
      result === undefined
        ? refusedRead(notFound(`Config entry not found for "${kind}" / "${name}"`), meta)
        : readJsonResponse(encodeResponse(result), meta),
  );
}

async function list(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const kind = c.req.param("kind") ?? "";
  requireConfigEntryKind(kind);
  const ns = kind === "proxy-defaults" ? DEFAULT_NAMESPACE : c.get("namespace");
  const token = c.get("token");
  const opts = parseReadOptions(c.get("query"), ctx.random);
  return blockingAnswer(
    ctx,
    c,
    opts,
    (v) => v.configEntries(kind, ns),
    ({ result, meta }) =>
      readJsonResponse(
        encodeResponse(result.filter((e) => mayAccess(ctx, token, e.Namespace, kind, e.Name, "read"))),
        meta,
      ),
  );
}

async function del(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const kind = c.req.param("kind") ?? "";
  const name = c.req.param("name") ?? "";
  requireConfigEntryKind(kind);
  const ns = entryNamespace(kind, c.get("namespace"));
  const cas = casParam(c);
  if (!mayAccess(ctx, c.get("token"), ns, kind, name, "write")) throw permissionDenied();
  checkGraph(ctx, { kind, name, ns, entry: undefined });
  const result = await applyCommand(ctx, {
    v: COMMAND_VERSION,
    type: "config-entry.delete",
    ns,
    kind,
    name,
    ...(cas === undefined ? {} : { cas }),
  });
  // Consul answers a plain delete with an empty object and a check-and-set one with whether it deleted.
  return jsonResponse(c, cas === undefined ? {} : result);
}
