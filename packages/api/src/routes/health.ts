import { filterSchemas } from "@cairn/discovery";
import type { HealthCheck, HealthStatus, Read, ServiceHealth, StateView } from "@cairn/fsm";
import type { Context } from "hono";
import { Hono } from "hono";
import { serveList } from "../catalog/list-read.js";
import { onlyPassing } from "../catalog/passing.js";
import {
  metaMatches,
  parseFilterParam,
  parseNear,
  parseNodeMeta,
  parsePassing,
  searchParams,
} from "../catalog/query.js";
import { combine, connectHealth, nodesByName } from "../catalog/reads.js";
import { type ReadAccess, readAccess, requireParam } from "../catalog/request.js";
import { checkJson, checkServiceNodeJson, encodeCheck, encodeCheckServiceNode } from "../catalog/shapes.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest } from "../http/errors.js";
import { route } from "../http/methods.js";
import type { RouteContext } from "../http/route-context.js";
import { singleNamespace } from "../middleware/namespace.js";

const STATES: ReadonlySet<string> = new Set(["any", "passing", "warning", "critical"]);

/** /v1/health: node, checks, service, connect, state. */
export function healthRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/node/:node{.+}", { GET: (c) => nodeChecks(ctx, c) });
  route(app, "/checks/:service{.+}", { GET: (c) => serviceChecks(ctx, c) });
  route(app, "/service/:service{.+}", { GET: (c) => serviceHealth(ctx, c, "service") });
  route(app, "/connect/:service{.+}", { GET: (c) => serviceHealth(ctx, c, "connect") });
  route(app, "/state/:state", { GET: (c) => checksInState(ctx, c) });
  const missing = {
    node: "Missing node name",
    checks: "Missing service name",
    service: "Missing service name",
    connect: "Missing service name",
    state: "Missing check state",
  };
  for (const [area, reason] of Object.entries(missing)) {
    for (const bare of [`/${area}`, `/${area}/`]) {
      route(app, bare, {
        GET: () => {
          throw badRequest(reason);
        },
      });
    }
  }
  return app;
}

/** Checks a token may see: node checks need node:read, service checks service:read. */
function checkVisible(may: ReadAccess) {
  return (check: HealthCheck) =>
    may("node", check.Node) && (check.ServiceName === "" || may("service", check.ServiceName));
}

/** Restricts a check read to checks on nodes whose meta matches `node-meta`, watching the nodes too. */
function withNodeMeta(
  read: (v: StateView) => Read<HealthCheck[]>,
  meta: ReadonlyMap<string, string> | undefined,
): (v: StateView) => Read<HealthCheck[]> {
  if (meta === undefined) return read;
  return (v) => {
    const checks = read(v);
    const nodes = nodesByName(v);
    const kept = checks.value.filter((chk) => {
      const node = nodes.byName.get(chk.Node);
      return node !== undefined && metaMatches(node.Meta, meta);
    });
    return combine(kept, checks, nodes.read);
  };
}

function nodeChecks(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const node = requireParam(c.req.param("node"), "Missing node name");
  const search = searchParams(c.req.url);
  const ns = c.get("namespace");
  return serveList(ctx, c, (v) => v.checksForNode(node, ns), {
    keep: checkVisible(readAccess(ctx, c)),
    toJson: checkJson,
    encode: encodeCheck,
    filter: parseFilterParam(search, filterSchemas.check),
  });
}

function serviceChecks(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const name = requireParam(c.req.param("service"), "Missing service name");
  const ns = singleNamespace(c.get("namespace"));
  const search = searchParams(c.req.url);
  return serveList(
    ctx,
    c,
    withNodeMeta((v) => v.checksForService(name, ns), parseNodeMeta(search)),
    {
      keep: checkVisible(readAccess(ctx, c)),
      toJson: checkJson,
      encode: encodeCheck,
      filter: parseFilterParam(search, filterSchemas.check),
      near: parseNear(search, c.get("agentNode")),
      nodeOf: (chk) => chk.Node,
    },
  );
}

function checksInState(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const state = c.req.param("state") ?? "";
  if (!STATES.has(state)) {
    throw badRequest(`Invalid check state "${state}": must be any, passing, warning or critical`);
  }
  const search = searchParams(c.req.url);
  const ns = c.get("namespace");
  const read = (v: StateView) => v.checksInState(state as HealthStatus | "any", ns);
  return serveList(ctx, c, withNodeMeta(read, parseNodeMeta(search)), {
    keep: checkVisible(readAccess(ctx, c)),
    toJson: checkJson,
    encode: encodeCheck,
    filter: parseFilterParam(search, filterSchemas.check),
    near: parseNear(search, c.get("agentNode")),
    nodeOf: (chk) => chk.Node,
  });
}

/**
 * /health/service and /health/connect: instances with their node's checks and their own. `passing` drops
 * entries with any check not passing, so a node or service in maintenance (a critical maintenance check)
 * disappears from it.
 */
function serviceHealth(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  kind: "service" | "connect",
): Promise<Response> {
  const name = requireParam(c.req.param("service"), "Missing service name");
  const ns = singleNamespace(c.get("namespace"));
  const search = searchParams(c.req.url);
  const passing = parsePassing(search);
  const meta = parseNodeMeta(search);
  const tags = search.getAll("tag");
  const query = { ns, ...(tags.length > 0 ? { tags } : {}) };
  const may = readAccess(ctx, c);
  const read = (v: StateView) =>
    kind === "connect" ? connectHealth(v, name, query) : v.serviceHealth(name, query);
  return serveList<ServiceHealth>(ctx, c, read, {
    keep: (e) =>
      metaMatches(e.node.Meta, meta) && may("node", e.node.Node) && may("service", e.service.Service),
    toJson: (e) => checkServiceNodeJson(e.node, e.service, e.checks),
    encode: (e) => encodeCheckServiceNode(e.node, e.service, e.checks),
    filter: parseFilterParam(search, filterSchemas.healthService),
    near: parseNear(search, c.get("agentNode")),
    nodeOf: (e) => e.node.Node,
    ...(passing ? { finish: onlyPassing } : {}),
  });
}
