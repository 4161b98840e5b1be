import type { PreparedQuery } from "@cairn/fsm";
import type { Context } from "hono";
import type { ApiEnv } from "../http/env.js";
import { permissionDenied } from "../http/errors.js";
import type { RouteContext } from "../http/route-context.js";
import { REDACTED_TOKEN } from "./definition.js";

/**
 * Prepared query ACLs as Consul applies them: a named query (or any template, the catch-all's prefix being
 * "") is guarded by query rules on its name; an unnamed static query has no prefix, so only its ID guards it.
 * Management tokens (acl:write) see everything, tokens included; everyone else sees `<hidden>`.
 */

/** The name the query rules apply to; undefined for an unnamed static query. */
export function aclPrefix(q: Pick<PreparedQuery, "Name" | "Template">): string | undefined {
  return q.Name !== "" || q.Template.Type !== "" ? q.Name : undefined;
}

export interface QueryAccess {
  readonly management: boolean;
  may(name: string, access: "read" | "write"): boolean;
}

export function queryAccess(ctx: RouteContext, c: Context<ApiEnv>, token = c.get("token")): QueryAccess {
  const ns = c.get("namespace");
  const management = ctx.authorizer.authorize(token, ns, "acl", "", "write") === "allow";
  return {
    management,
    may: (name, access) =>
      management || ctx.authorizer.authorize(token, ns, "query", name, access) === "allow",
  };
}

/** Refuses a write the token may not make on the query's prefix (if it has one). */
export function requireWrite(access: QueryAccess, q: Pick<PreparedQuery, "Name" | "Template">): void {
  const prefix = aclPrefix(q);
  if (prefix !== undefined && !access.may(prefix, "write")) throw permissionDenied();
}

/** The query as this reader may see it: undefined when list filtering drops it, token redacted unless management. */
export function visibleQuery(
  access: QueryAccess,
  q: PreparedQuery,
  unnamedVisible: boolean,
): PreparedQuery | undefined {
  if (access.management) return q;
  const prefix = aclPrefix(q);
  if (prefix === undefined ? !unnamedVisible : !access.may(prefix, "read")) return undefined;
  return q.Token === "" ? q : { ...q, Token: REDACTED_TOKEN };
}
