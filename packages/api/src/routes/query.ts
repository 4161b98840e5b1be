import type { PreparedQueryDefinition } from "@cairn/discovery";
import { COMMAND_VERSION, type PreparedQuery } from "@cairn/fsm";
import { writeJson } from "@cairn/json";
import type { Context } from "hono";
import { Hono } from "hono";
import { applyCommand } from "../http/apply.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, methodNotAllowed, notFound, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { setReadMeta } from "../http/read-meta.js";
import { parseReadOptions } from "../http/read-options.js";
import { encodedJsonResponse, jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { decodeBody } from "../json/decode-body.js";
import { singleNamespace } from "../middleware/namespace.js";
import { queryAccess, requireWrite, visibleQuery } from "../query/access.js";
import { preparedQueryBody } from "../query/body.js";
import { toDefinition, toQuerySpec } from "../query/definition.js";
import { executeQuery } from "../query/execute.js";
import { executeWithFailover, failoverPlan } from "../query/failover.js";
import { resolveQuery } from "../query/resolve.js";
import { preparedQueryJson } from "../query/shape.js";
import { sourceAddress } from "../query/source.js";

/** /v1/query: create and list; /v1/query/:uuid read, update, delete; .../execute and .../explain. */
export function queryRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/", { POST: (c) => create(ctx, c), GET: (c) => list(ctx, c) });
  // A query name may hold slashes, so, as in Consul, execute and explain are told apart by the path's end.
  const action = (c: Context<ApiEnv>) => /\/(execute|explain)$/.exec(c.req.path)?.[1];
  const onlyGet = (c: Context<ApiEnv>, run: () => Promise<Response>) => {
    if (action(c) !== undefined) throw methodNotAllowed(c.req.method, ["GET"]);
    return run();
  };
  route(app, "/:id{.+}", {
    GET: (c) => {
      const a = action(c);
      return a === "execute" ? execute(ctx, c) : a === "explain" ? explain(ctx, c) : read(ctx, c);
    },
    PUT: (c) => onlyGet(c, () => update(ctx, c)),
    DELETE: (c) => onlyGet(c, () => remove(ctx, c)),
  });
  return app;
}

/** The query ID or name: the path after /v1/query/, less any /execute or /explain. */
function queryId(c: Context<ApiEnv>): string {
  return (c.req.param("id") ?? "").replace(/\/(execute|explain)$/, "");
}

async function body(ctx: RouteContext, c: Context<ApiEnv>) {
  const text = await readTextLimited(
    c,
    ctx.config.maxBodyBytes,
    (n) => `Request body too large (${n} bytes)`,
  );
  return text.trim() === "" ? {} : (decodeBody(preparedQueryBody.nullable(), text) ?? {});
}

const stored = (ctx: RouteContext, id: string): PreparedQuery | undefined =>
  ctx.backend.store.view().preparedQuery(id).value;

async function create(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const b = await body(ctx, c);
  if (b.ID) throw badRequest("ID must be empty when creating a new prepared query");
  const spec = toQuerySpec(b, ctx.uuid());
  requireWrite(queryAccess(ctx, c), spec);
  await applyCommand(ctx, { v: COMMAND_VERSION, type: "prepared-query.set", op: "create", query: spec });
  return jsonResponse(c, { ID: spec.ID });
}

async function update(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const id = queryId(c);
  const spec = toQuerySpec(await body(ctx, c), id);
  const access = queryAccess(ctx, c);
  requireWrite(access, spec);
  const existing = stored(ctx, id);
  if (!existing) throw notFound(`Cannot modify non-existent prepared query: '${id}'`);
  requireWrite(access, existing);
  await applyCommand(ctx, { v: COMMAND_VERSION, type: "prepared-query.set", op: "update", query: spec });
  return c.body(null, 200);
}

async function remove(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const id = queryId(c);
  const existing = stored(ctx, id);
  if (!existing) throw notFound(`Cannot modify non-existent prepared query: '${id}'`);
  requireWrite(queryAccess(ctx, c), existing);
  await applyCommand(ctx, { v: COMMAND_VERSION, type: "prepared-query.delete", id });
  return c.body(null, 200);
}

/** Waits for the read the consistency mode asks for; prepared query reads never block. */
async function barrier(ctx: RouteContext, c: Context<ApiEnv>) {
  const opts = parseReadOptions(c.get("query"), ctx.random);
  return ctx.backend.readBarrier(opts.consistency, opts.maxStaleMs);
}

async function list(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const contact = await barrier(ctx, c);
  const read = ctx.backend.store.view().preparedQueries();
  setReadMeta(c, { ...contact, index: read.index });
  const access = queryAccess(ctx, c);
  const visible = read.value.flatMap((q) => visibleQuery(access, q, false) ?? []);
  return jsonResponse(c, visible.map(preparedQueryJson));
}

async function read(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const id = queryId(c);
  const contact = await barrier(ctx, c);
  const r = ctx.backend.store.view().preparedQuery(id);
  setReadMeta(c, { ...contact, index: r.index });
  if (!r.value) throw notFound("Query not found");
  // Holding the ID of an unnamed query is enough to read it; a named one is guarded by its name.
  const visible = visibleQuery(queryAccess(ctx, c), r.value, true);
  if (!visible) throw permissionDenied();
  return jsonResponse(c, [preparedQueryJson(visible)]);
}

async function explain(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const contact = await barrier(ctx, c);
  const found = resolveQuery(ctx.backend.store.view(), queryId(c), "");
  setReadMeta(c, { ...contact, index: found.index });
  const rendered: PreparedQuery = {
    ...found.stored,
    Service: found.rendered.Service as unknown as PreparedQuery["Service"],
  };
  const visible = visibleQuery(queryAccess(ctx, c), rendered, true);
  if (!visible) throw permissionDenied();
  // Cairn's addition: the datacenters execution would fail over to, in order.
  return jsonResponse(c, {
    Query: preparedQueryJson(visible),
    FailoverDatacenters: failoverPlan(ctx, found.rendered),
  });
}

const TRUE = new Set(["", "1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** `?limit` and `?connect` of an execute, refused as Consul does. */
function executeParams(c: Context<ApiEnv>): { limit: number; connect: boolean } {
  const q = c.get("query");
  const rawLimit = q.get("limit") ?? "";
  if (rawLimit !== "" && !/^[+-]?[0-9]+$/.test(rawLimit)) {
    throw badRequest(`Bad limit: strconv.Atoi: parsing ${writeJson(rawLimit)}: invalid syntax`);
  }
  const rawConnect = q.get("connect");
  if (rawConnect !== undefined && !TRUE.has(rawConnect) && !FALSE.has(rawConnect)) {
    throw badRequest("Invalid value for ?connect");
  }
  return {
    limit: rawLimit === "" ? 0 : Number.parseInt(rawLimit, 10),
    connect: rawConnect !== undefined && TRUE.has(rawConnect),
  };
}

/** Runs `query` here with `token`'s view of nodes and services. */
function executeHere(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  query: PreparedQueryDefinition,
  token: string,
  near: string,
) {
  const ns = singleNamespace(c.get("namespace"));
  const may = (type: "node" | "service", name: string) =>
    ctx.authorizer.authorize(token, ns, type, name, "read") === "allow";
  return executeQuery(ctx.backend.store.view(), query, {
    near,
    sourceIp: sourceAddress(c),
    ...executeParams(c),
    namespace: ns,
    agentNode: c.get("agentNode"),
    datacenter: ctx.datacenter,
    random: ctx.random,
    visible: (inst) => may("node", inst.node.Node) && may("service", inst.service.Service),
  });
}

async function execute(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const params = executeParams(c);
  const contact = await barrier(ctx, c);
  const found = resolveQuery(ctx.backend.store.view(), queryId(c), "");
  // The query's bound token runs it; without one, the caller's.
  const token = found.stored.Token || c.get("token");
  const near = c.get("query").get("near") ?? "";
  // `_agent` is this agent, so it only means something here; remote datacenters never sort by it.
  const result = executeHere(ctx, c, found.rendered, token, near === "_agent" ? c.get("agentNode") : near);
  setReadMeta(c, { ...contact, index: Math.max(result.index, found.index) });
  const body = await executeWithFailover(ctx, found.rendered, result, {
    ...params,
    token,
    log: (dc, reason) =>
      c
        .get("log")
        .warn({ query: found.stored.ID, datacenter: dc, err: reason }, "prepared query failover failed"),
  });
  return encodedJsonResponse(c, body);
}

/**
 * A query another datacenter's server sent here because it had no healthy instance (Consul's
 * ExecuteRemote): run as given, on this datacenter's catalog, never failing over again.
 */
async function executeRemote(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const text = await readTextLimited(
    c,
    ctx.config.maxBodyBytes,
    (n) => `Request body too large (${n} bytes)`,
  );
  const b = decodeBody(preparedQueryBody, text);
  const query = toDefinition(toQuerySpec(b, b.ID ?? ""));
  const contact = await barrier(ctx, c);
  const result = executeHere(ctx, c, query, c.get("token"), "");
  setReadMeta(c, { ...contact, index: result.index });
  return encodedJsonResponse(c, result.body);
}

/** The route servers of other datacenters send failed-over queries to. */
export function queryRemoteRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/", { POST: (c) => executeRemote(ctx, c) });
  return app;
}
