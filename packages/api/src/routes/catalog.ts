import { filterSchemas } from "@cairn/discovery";
import type { ServiceInstance, StateView } from "@cairn/fsm";
import type { Context } from "hono";
import { Hono } from "hono";
import { filterAllowed } from "../authorizer.js";
import { serveList } from "../catalog/list-read.js";
import { metaMatches, parseFilterParam, parseNear, parseNodeMeta, searchParams } from "../catalog/query.js";
import { servicesByNodeMeta } from "../catalog/reads.js";
import { deregisterBody, registerBody } from "../catalog/register-body.js";
import { readAccess, requestedNamespace, requireParam } from "../catalog/request.js";
import {
  encodeNode,
  encodeServiceNode,
  encodeShapes,
  goMap,
  nodeJson,
  nodeServiceJson,
  serviceNodeJson,
} from "../catalog/shapes.js";
import { type CatalogCaller, deregisterEntry, registerEntry } from "../catalog/writes.js";
import { blockingAnswer } from "../http/blocking-query.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest } from "../http/errors.js";
import { route } from "../http/methods.js";
import { parseReadOptions } from "../http/read-options.js";
import { encodeResponse, jsonResponse, readJsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { decodeBody } from "../json/decode-body.js";
import { requireLocalDatacenter } from "../middleware/datacenter.js";

/** /v1/catalog: register, deregister, datacenters, nodes, services, service, connect, node. */
export function catalogRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/register", { PUT: (c) => register(ctx, c) });
  route(app, "/deregister", { PUT: (c) => deregister(ctx, c) });
  route(app, "/datacenters", { GET: (c) => jsonResponse(c, ctx.datacenters()) });
  route(app, "/nodes", { GET: (c) => nodes(ctx, c) });
  route(app, "/services", { GET: (c) => services(ctx, c) });
  for (const kind of ["service", "connect"] as const) {
    route(app, `/${kind}/:service{.+}`, { GET: (c) => serviceNodes(ctx, c, kind) });
    for (const bare of [`/${kind}`, `/${kind}/`]) {
      route(app, bare, { GET: () => missing("Missing service name") });
    }
  }
  route(app, "/node/:node{.+}", { GET: (c) => nodeServices(ctx, c, "map") });
  route(app, "/node-services/:node{.+}", { GET: (c) => nodeServices(ctx, c, "list") });
  for (const bare of ["/node", "/node/", "/node-services", "/node-services/"]) {
    route(app, bare, { GET: () => missing("Missing node name") });
  }
  return app;
}

/**
 * A registration whose body names another `Datacenter` is made there, as Consul forwards the RPC by its
 * Datacenter field; one no route leads to answers "No path to datacenter".
 */
function forwardByBody(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  dc: string | null | undefined,
  text: string,
): Promise<Response> | undefined {
  if (!dc || dc === ctx.datacenter) return undefined;
  const raw = c.req.raw;
  const forwarded = ctx.forwardDatacenter(
    dc,
    new Request(raw.url, { method: raw.method, headers: raw.headers, body: text }),
  );
  if (forwarded) return forwarded;
  requireLocalDatacenter(dc, ctx.datacenter);
  return undefined;
}

function missing(reason: string): never {
  throw badRequest(reason);
}

async function readBody(ctx: RouteContext, c: Context<ApiEnv>): Promise<string> {
  return readTextLimited(c, ctx.config.maxBodyBytes, (n) => `Request body too large (${n} bytes)`);
}

async function register(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const text = await readBody(ctx, c);
  const body = decodeBody(registerBody, text);
  const remote = forwardByBody(ctx, c, body.Datacenter, text);
  if (remote) return remote;
  await registerEntry(ctx, body, caller(c));
  return jsonResponse(c, true);
}

async function deregister(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const text = await readBody(ctx, c);
  const body = decodeBody(deregisterBody, text);
  const remote = forwardByBody(ctx, c, body.Datacenter, text);
  if (remote) return remote;
  await deregisterEntry(ctx, body, caller(c));
  return jsonResponse(c, true);
}

function caller(c: Context<ApiEnv>): CatalogCaller {
  return {
    token: c.get("token"),
    requestNamespace: requestedNamespace(c),
    fallbackNamespace: c.get("namespace"),
  };
}

function nodes(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const search = searchParams(c.req.url);
  const meta = parseNodeMeta(search);
  const may = readAccess(ctx, c);
  return serveList(ctx, c, (v) => v.nodes(), {
    keep: (n) => metaMatches(n.Meta, meta) && may("node", n.Node),
    toJson: nodeJson,
    encode: encodeNode,
    filter: parseFilterParam(search, filterSchemas.nodes),
    near: parseNear(search, c.get("agentNode")),
    nodeOf: (n) => n.Node,
  });
}

function services(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const meta = parseNodeMeta(searchParams(c.req.url));
  const ns = c.get("namespace");
  const token = c.get("token");
  const opts = parseReadOptions(c.get("query"), ctx.random);
  return blockingAnswer(
    ctx,
    c,
    opts,
    (v) => (meta ? servicesByNodeMeta(v, meta, ns) : v.services(ns)),
    ({ result, meta: readMeta }) => {
      const names = filterAllowed(ctx.authorizer, token, ns, Object.keys(result), serviceResource, "read");
      const out: Record<string, string[]> = {};
      for (const name of names) out[name] = result[name] ?? [];
      return readJsonResponse(encodeResponse(out), readMeta);
    },
  );
}

const serviceResource = (name: string) => ({ type: "service", name }) as const;

function serviceNodes(ctx: RouteContext, c: Context<ApiEnv>, kind: "service" | "connect"): Promise<Response> {
  const name = requireParam(c.req.param("service"), "Missing service name");
  const search = searchParams(c.req.url);
  const meta = parseNodeMeta(search);
  const tags = search.getAll("tag");
  const query = { ns: c.get("namespace"), ...(tags.length > 0 ? { tags } : {}) };
  const may = readAccess(ctx, c);
  const read = (v: StateView) =>
    kind === "connect" ? v.connectInstances(name, query) : v.serviceInstances(name, query);
  return serveList<ServiceInstance>(ctx, c, read, {
    keep: (i) =>
      metaMatches(i.node.Meta, meta) && may("node", i.node.Node) && may("service", i.service.Service),
    toJson: serviceNodeJson,
    encode: encodeServiceNode,
    filter: parseFilterParam(search, filterSchemas.service),
    near: parseNear(search, c.get("agentNode")),
    nodeOf: (i) => i.node.Node,
  });
}

/** A node with a map of its services by ID; `null` for an unknown node, as Consul answers. */
/**
 * `/catalog/node/:node` (services by ID) and, as Consul 1.7+ added it, `/catalog/node-services/:node`
 * (services as a list sorted by ID, `{"Node":null,"Services":null}` for an unknown node).
 */
function nodeServices(ctx: RouteContext, c: Context<ApiEnv>, shape: "map" | "list"): Promise<Response> {
  const name = requireParam(c.req.param("node"), "Missing node name");
  const ns = c.get("namespace");
  const filter = parseFilterParam(searchParams(c.req.url), filterSchemas.nodeService);
  const opts = parseReadOptions(c.get("query"), ctx.random);
  const may = readAccess(ctx, c);
  return blockingAnswer(
    ctx,
    c,
    opts,
    (v) => v.node(name, ns),
    ({ result, meta }) => {
      if (result === undefined || !may("node", result.node.Node))
        return readJsonResponse(
          encodeResponse(shape === "map" ? null : { Node: null, Services: null }),
          meta,
        );
      const byId: Record<string, Record<string, unknown>> = {};
      for (const s of result.services) {
        if (!may("service", s.Service)) continue;
        const json = nodeServiceJson(s);
        if (filter === undefined || filter(json)) byId[s.ID] = json;
      }
      const services = goMap(byId);
      return readJsonResponse(
        encodeShapes({
          Node: nodeJson(result.node),
          Services: shape === "map" ? services : Object.values(services),
        }),
        meta,
      );
    },
  );
}
