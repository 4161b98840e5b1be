import type { FilterPredicate } from "@cairn/discovery";
import type { StateView } from "@cairn/fsm";
import type { Context } from "hono";
import { allowAll } from "../authorizer.js";
import { blockingAnswer, type ReadFn } from "../http/blocking-query.js";
import type { ApiEnv } from "../http/env.js";
import { prepareAnswer, sendPrepared } from "../http/prepared-answer.js";
import { jsonReadHeaders, type ReadMeta } from "../http/read-meta.js";
import { parseReadOptions } from "../http/read-options.js";
import type { RouteContext } from "../http/route-context.js";
import { sortNear } from "./near.js";

type Json = Record<string, unknown>;

/** How one catalog or health list read turns stored records into Consul's response. */
export interface ListShape<R> {
  /** Records that stay before shaping: node-meta and ACL checks. */
  keep?: (record: R) => boolean;
  /** The record as Consul's JSON object, for the `filter` expression to evaluate. */
  toJson: (record: R) => Json;
  /** The record's JSON text (the same shape as toJson), cached per stored record where it can be. */
  encode: (record: R) => string;
  filter?: FilterPredicate;
  /** `near`: sorts by the distance of each record's node. */
  near?: string;
  nodeOf?: (record: R) => string;
  /** Last step on the filtered, sorted records (the `passing` filter of health reads). */
  finish?: (records: R[]) => R[];
}

/** A number per authorizer object, so a memoized answer is never served under another one (say, after a reload). */
const authorizerIds = new WeakMap<object, number>();
let authorizersSeen = 0;
function authorizerId(authorizer: object): number {
  let id = authorizerIds.get(authorizer);
  if (id === undefined) {
    id = ++authorizersSeen;
    authorizerIds.set(authorizer, id);
  }
  return id;
}

/** Parameters that choose how or when to read, never what the answer holds. */
const READ_MODE_PARAMS: ReadonlySet<string> = new Set([
  "index",
  "wait",
  "stale",
  "consistent",
  "cached",
  "token",
]);

/**
 * Serves a list read as Consul's catalog endpoints do: the read runs (blocking on `index` in the requested
 * consistency mode), then node-meta/ACL, `filter`, `near` and any last step apply to its result, and the
 * list is encoded once. The reported index is the read's, whatever the filters left.
 *
 * The encoded answer is memoized by the read's index and everything else it depends on (path, parameters,
 * namespace, and with ACLs on the token and the ACL tables' index): a list many clients poll, such as a
 * service's health, is shaped and encoded once per change instead of once per request. `near` answers are
 * not: they depend on coordinates, which move no catalog index.
 */
export function serveList<R>(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  read: ReadFn<StateView, readonly R[]>,
  shape: ListShape<R>,
): Promise<Response> {
  const opts = parseReadOptions(c.get("query"), ctx.random);
  // What the memo key needs of the request, taken now: a held read answers without the Context.
  const token = c.get("token");
  const namespace = c.get("namespace");
  const path = c.req.path;
  const params = c.get("query").keyWithout(READ_MODE_PARAMS);
  return blockingAnswer(ctx, c, opts, read, ({ result, meta, view }) => {
    const encode = () => Buffer.from(encodeList(ctx, result, shape));
    if (shape.near !== undefined || typeof meta.index !== "number") return listAnswer(encode(), meta);
    const access =
      ctx.authorizer === allowAll
        ? ""
        : `${authorizerId(ctx.authorizer)}\u0000${ctx.backend.store.aclIndex}\u0000${token}`;
    const key = ["list", path, namespace, access, params].join("\u0000");
    return listAnswer(
      view.memoized(key, meta.index, encode, (body) => body.byteLength),
      meta,
    );
  });
}

function listAnswer(body: Buffer, meta: ReadMeta): Response {
  return sendPrepared(prepareAnswer(200, body as Uint8Array<ArrayBuffer>, jsonReadHeaders(meta)));
}

function encodeList<R>(ctx: RouteContext, result: readonly R[], shape: ListShape<R>): string {
  const kept = shape.keep ? result.filter(shape.keep) : result;
  const sorted = shape.nodeOf ? sortNear(ctx.backend.store.view(), shape.near, kept, shape.nodeOf) : kept;
  const filter = shape.filter;
  let selected = filter ? sorted.filter((record) => filter(shape.toJson(record))) : [...sorted];
  if (shape.finish) selected = shape.finish(selected);
  return `[${selected.map(shape.encode).join(",")}]`;
}
