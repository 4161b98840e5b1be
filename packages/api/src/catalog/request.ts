import type { Context } from "hono";
import { allowAll } from "../authorizer.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest } from "../http/errors.js";
import type { RouteContext } from "../http/route-context.js";

/**
 * The namespace a write request named itself (?ns, then the namespace headers), or undefined when it named
 * none: unlike `c.get("namespace")`, which falls back to the default, this tells "default" given from absent,
 * which the namespace agreement rules of catalog writes need.
 */
export function requestedNamespace(c: Context<ApiEnv>): string | undefined {
  return (
    c.get("query").get("ns") ||
    c.req.header("x-service-namespace") ||
    c.req.header("x-consul-namespace") ||
    undefined
  );
}

/**
 * Names the state store joins into composite keys with NUL separators must not hold one: such a name could
 * alias another record's key.
 */
export function requireNoNul(value: string | undefined, what: string): void {
  if (value?.includes("\u0000")) throw badRequest(`Invalid ${what}: must not contain a NUL character`);
}

/** A path parameter that must not be empty (`/catalog/node/` names no node). */
export function requireParam(value: string | undefined, missing: string): string {
  if (value === undefined || value === "") throw badRequest(missing);
  return value;
}

export type ReadAccess = (type: "node" | "service", name: string) => boolean;

/** May the request's token read this node or service? Free when ACLs are off (the per-record hot path). */
export function readAccess(ctx: RouteContext, c: Context<ApiEnv>): ReadAccess {
  if (ctx.authorizer === allowAll) return () => true;
  const token = c.get("token");
  const namespace = c.get("namespace");
  return (type, name) => ctx.authorizer.authorize(token, namespace, type, name, "read") === "allow";
}
