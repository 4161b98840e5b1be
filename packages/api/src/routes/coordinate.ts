import { coordinateIsValid } from "@cairn/discovery";
import { COMMAND_VERSION, type CoordinateEntry, type CoordinateUpdate, type StateView } from "@cairn/fsm";
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { filterAllowed } from "../authorizer.js";
import { CoordinateBatcher } from "../catalog/coordinate-batcher.js";
import { requireNoNul, requireParam } from "../catalog/request.js";
import { coordinateJson } from "../catalog/shapes.js";
import { applyCommand } from "../http/apply.js";
import { blockingAnswer } from "../http/blocking-query.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { parseReadOptions } from "../http/read-options.js";
import { emptyNotFound, encodeResponse, jsonResponse, readJsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { decodeBody } from "../json/decode-body.js";

/** Serf's Vivaldi coordinates have 8 dimensions with Consul's defaults; other sizes cannot be compared. */
const DIMENSIONALITY = 8;

const updateBody = z.looseObject({
  Node: z.string().nullable().optional(),
  Segment: z.string().nullable().optional(),
  Coord: z
    .looseObject({
      Vec: z.array(z.number()).nullable().optional(),
      Error: z.number().optional(),
      Adjustment: z.number().optional(),
      Height: z.number().optional(),
    })
    .nullable()
    .optional(),
});

/** /v1/coordinate: datacenters, nodes, node/:node, update (batched into Raft). */
export function coordinateRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const batcher = new CoordinateBatcher(
    async (updates) => {
      try {
        await applyCommand(ctx, { v: COMMAND_VERSION, type: "coordinate.batch-update", updates });
      } catch (err) {
        ctx.logger.warn({ err, updates: updates.length }, "coordinate batch update failed");
      }
    },
    ctx.config.coordinateUpdatePeriodMs,
    (count) =>
      ctx.logger.warn({ dropped: count }, "coordinate updates dropped: more than one period can carry"),
  );
  const app = new Hono<ApiEnv>();
  route(app, "/datacenters", { GET: (c) => datacenters(ctx, c) });
  route(app, "/nodes", { GET: (c) => nodes(ctx, c, undefined) });
  route(app, "/node/:node{.+}", {
    GET: (c) => nodes(ctx, c, requireParam(c.req.param("node"), "Missing node name")),
  });
  route(app, "/update", { PUT: (c) => update(ctx, c, batcher) });
  return app;
}

/**
 * The WAN view: the WAN pool's server coordinates per datacenter when the agent has one; otherwise this
 * datacenter with the coordinates of its servers (the nodes running the `consul` service), named
 * `node.datacenter` as WAN members are, their LAN coordinates standing in for WAN ones.
 */
function datacenters(ctx: RouteContext, c: Context<ApiEnv>): Response {
  const wan = ctx.coordinateDatacenters();
  if (wan !== undefined) return jsonResponse(c, wan);
  const view = ctx.backend.store.view();
  const servers = new Set(view.serviceInstances("consul").value.map((i) => i.node.Node));
  const coordinates = view
    .coordinates()
    .value.filter((e) => e.Segment === "" && servers.has(e.Node))
    .map((e) => ({ Node: `${e.Node}.${ctx.datacenter}`, Coord: coordinateJson(e).Coord }));
  return jsonResponse(c, [{ Datacenter: ctx.datacenter, AreaID: "WAN", Coordinates: coordinates }]);
}

/**
 * All nodes' coordinates, or one node's (404 when it has none); `segment` keeps one segment's. A read that
 * waits is parked (parked.ts): nothing below holds the Context.
 */
function nodes(ctx: RouteContext, c: Context<ApiEnv>, node: string | undefined): Promise<Response> {
  const opts = parseReadOptions(c.get("query"), ctx.random);
  const segment = c.get("query").get("segment");
  const token = c.get("token");
  const ns = c.get("namespace");
  const read = (v: StateView) => v.coordinates(node);
  return blockingAnswer(ctx, c, opts, read, ({ result, meta }) => {
    const inSegment = segment === undefined ? result : result.filter((e) => e.Segment === segment);
    const visible = filterAllowed<CoordinateEntry>(
      ctx.authorizer,
      token,
      ns,
      inSegment,
      (e) => ({ type: "node", name: e.Node }),
      "read",
    );
    if (node !== undefined && visible.length === 0) return emptyNotFound(meta);
    return readJsonResponse(encodeResponse(visible.map(coordinateJson)), meta);
  });
}

async function update(ctx: RouteContext, c: Context<ApiEnv>, batcher: CoordinateBatcher): Promise<Response> {
  const text = await readTextLimited(
    c,
    ctx.config.maxBodyBytes,
    (n) => `Request body too large (${n} bytes)`,
  );
  const body = decodeBody(updateBody, text);
  const node = requireParam(body.Node ?? "", "Must provide node");
  requireNoNul(node, "node name");
  requireNoNul(body.Segment ?? undefined, "segment");
  const raw = body.Coord;
  const coord = {
    Vec: raw?.Vec ?? [],
    Error: raw?.Error ?? 0,
    Adjustment: raw?.Adjustment ?? 0,
    Height: raw?.Height ?? 0,
  };
  if (raw === undefined || raw === null || !coordinateIsValid(coord)) throw badRequest("invalid coordinate");
  if (coord.Vec.length !== DIMENSIONALITY) {
    throw badRequest(`incompatible coordinate: ${coord.Vec.length} dimensions, expected ${DIMENSIONALITY}`);
  }
  if (ctx.authorizer.authorize(c.get("token"), c.get("namespace"), "node", node, "write") !== "allow") {
    throw permissionDenied();
  }
  const entry: CoordinateUpdate = { Node: node, Segment: body.Segment ?? "", Coord: coord };
  batcher.add(entry);
  return c.body(null, 200);
}
