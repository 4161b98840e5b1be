import type { FilterPredicate } from "@cairn/discovery";
import type { StateView } from "@cairn/fsm";
import type { Context } from "hono";
import { blockingRead, type ReadFn } from "../http/blocking-query.js";
import { clientGone } from "../http/client-gone.js";
import type { ApiEnv } from "../http/env.js";
import { setReadMeta } from "../http/read-meta.js";
import { parseReadOptions } from "../http/read-options.js";
import { encodedJsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { sortNear } from "./near.js";
import { encodeShapes } from "./shapes.js";

type Json = Record<string, unknown>;

/** How one catalog or health list read turns stored records into Consul's response. */
export interface ListShape<R> {
  /** Records that stay before shaping: node-meta and ACL checks. */
  keep?: (record: R) => boolean;
  toJson: (record: R) => Json;
  /** The `filter` expression, run on the shaped record. */
  filter?: FilterPredicate;
  /** `near`: sorts by the distance of each record's node. */
  near?: string;
  nodeOf?: (record: R) => string;
  /** Last step on the shaped list (the `passing` filter of health reads). */
  finish?: (items: Json[]) => Json[];
}

/**
 * Serves a list read as Consul's catalog endpoints do: the read runs (blocking on `index` in the requested
 * consistency mode), then node-meta/ACL, `filter`, `near` and any last step apply to its result, and the
 * list is encoded once. The reported index is the read's, whatever the filters left.
 */
export async function serveList<R>(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  read: ReadFn<StateView, readonly R[]>,
  shape: ListShape<R>,
): Promise<Response> {
  const opts = parseReadOptions(c.var.query, ctx.random);
  const { result, meta } = await blockingRead(ctx, ctx.backend.store, opts, read, clientGone(c));
  setReadMeta(c, meta);
  const kept = shape.keep ? result.filter(shape.keep) : result;
  const sorted = shape.nodeOf ? sortNear(ctx.backend.store.view(), shape.near, kept, shape.nodeOf) : kept;
  let items: Json[] = [];
  for (const record of sorted) {
    const json = shape.toJson(record);
    if (shape.filter === undefined || shape.filter(json)) items.push(json);
  }
  if (shape.finish) items = shape.finish(items);
  return encodedJsonResponse(c, encodeShapes(items));
}
