import type { AclStateReads, Command, Read, StateView } from "@cairn/fsm";
import type { Context } from "hono";
import { applyCommand } from "../http/apply.js";
import { blockingRead } from "../http/blocking-query.js";
import { clientGone } from "../http/client-gone.js";
import type { ApiEnv } from "../http/env.js";
import { setReadMeta } from "../http/read-meta.js";
import { parseReadOptions } from "../http/read-options.js";
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

/** A blocking, consistency-aware read of the ACL tables with the index headers set. */
export async function aclRead<T>(
  ctx: RouteContext,
  c: Context<ApiEnv>,
  read: (acl: AclStateReads, view: StateView) => Read<T>,
): Promise<T> {
  const opts = parseReadOptions(c.get("query"), ctx.random);
  const { result, meta } = await blockingRead(
    ctx,
    ctx.backend.store,
    opts,
    (v) => read(v.acl(), v),
    clientGone(c),
  );
  setReadMeta(c, meta);
  return result;
}
