import type { AclStateReads, Command, Read, StateView } from "@cairn/fsm";
import type { Context } from "hono";
import { applyCommand } from "../http/apply.js";
import { blockingAnswer } from "../http/blocking-query.js";
import type { ApiEnv } from "../http/env.js";
import { refusedRead } from "../http/error-handler.js";
import { HttpError } from "../http/errors.js";
import type { ReadMeta } from "../http/read-meta.js";
import { parseReadOptions } from "../http/read-options.js";
import { encodeResponse, readJsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";

/**
 * Applies an ACL or namespace write, then reads the result back from a local view that has caught up with
 * the leader (a follower forwards the write; its own state may lag until the barrier).
 */
export async function applyThenRead<T>(
  ctx: RouteContext,
  command: Command,
  read: (acl: AclStateReads) => T,
): Promise<T> {
  await applyCommand(ctx, command);
  await ctx.backend.readBarrier("default");
  return read(ctx.backend.store.view().acl());
}

/** How a read of one record answers when it found none (its `ReadMeta` carries the index headers). */
export type Missing = (meta: ReadMeta) => Response;

/** Consul answers a missing token, policy or the like as an unknown token: 403 ACL not found. */
export const ACL_NOT_FOUND: Missing = (meta) => refusedRead(new HttpError(403, "ACL not found"), meta);

/**
 * A blocking, consistency-aware read of the ACL tables answered as JSON with the index headers; a read of
 * one record that found none (undefined) answers `missing`. A read that waits is parked (parked.ts): `read`
 * must not hold the Context.
 */
export function aclAnswer<T>(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  read: (acl: AclStateReads, view: StateView) => Read<T>,
  missing?: Missing,
): Promise<Response> {
  return aclReadAnswer(ctx, c, read, (result, meta) =>
    result === undefined && missing !== undefined
      ? missing(meta)
      : readJsonResponse(encodeResponse(result), meta),
  );
}

/** `aclAnswer` with the answer built by `respond` (which must not hold the Context either). */
export function aclReadAnswer<T>(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  read: (acl: AclStateReads, view: StateView) => Read<T>,
  respond: (result: T, meta: ReadMeta) => Response,
): Promise<Response> {
  const opts = parseReadOptions(c.get("query"), ctx.random);
  return blockingAnswer(
    ctx,
    c,
    opts,
    (v) => read(v.acl(), v),
    ({ result, meta }) => respond(result, meta),
  );
}
