import type { TxnResponse } from "@cairn/fsm";
import { COMMAND_VERSION } from "@cairn/fsm";
import type { Context } from "hono";
import { Hono } from "hono";
import { applyCommand } from "../http/apply.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { route } from "../http/methods.js";
import { setLeaderMeta } from "../http/read-meta.js";
import { parseReadOptions } from "../http/read-options.js";
import { jsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { deniedOps } from "../txn/acl.js";
import { decodeTxn } from "../txn/decode.js";

/**
 * PUT /v1/txn. A transaction with any write goes through the write path as one command; a read-only one
 * is served from the local store under the requested consistency mode and carries the leader headers.
 * 200 with Results when applied, 409 with Errors when rolled back.
 */
export function txnRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/", { PUT: (c) => txn(ctx, c) });
  return app;
}

async function txn(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const limit = ctx.config.txnMaxReqBytes;
  const text = await readTextLimited(c, limit, () => `Request body too large, max size: ${limit} bytes`);
  const {
    ops: decoded,
    problems,
    writes,
  } = decodeTxn(text, {
    maxKVValueBytes: ctx.config.kvMaxValueBytes,
    datacenter: ctx.datacenter,
    namespace: c.get("namespace"),
  });

  // As Consul's pre-check: every operation's problem or denial is reported, and nothing runs.
  const denied = deniedOps(ctx.authorizer, c.get("token"), c.get("namespace"), decoded);
  if (problems.length > 0 || denied.length > 0) {
    const errors = [...problems, ...denied].sort((a, b) => a.OpIndex - b.OpIndex);
    return respond(c, { Results: null, Errors: errors });
  }
  const ops = decoded.filter((op) => op !== undefined);

  if (writes === 0) {
    const opts = parseReadOptions(c.get("query"), ctx.random);
    const contact = await ctx.backend.readBarrier(opts.consistency, opts.maxStaleMs);
    setLeaderMeta(c, contact.knownLeader, contact.lastContactMs);
    return respond(c, ctx.backend.store.view().readTxn(ops));
  }
  const result = await applyCommand(ctx, { v: COMMAND_VERSION, type: "txn", ops, now: ctx.now() });
  if (typeof result !== "object" || !("Results" in result)) throw new Error("txn apply returned no response");
  return respond(c, result);
}

function respond(c: Context<ApiEnv>, response: TxnResponse): Response {
  return jsonResponse(c, response, response.Errors && response.Errors.length > 0 ? 409 : 200);
}
