import { ChainCompileError, type CompiledChain, compileChain } from "@cairn/discovery";
import { writeJson } from "@cairn/json";
import type { Context } from "hono";
import { Hono } from "hono";
import { combine } from "../catalog/reads.js";
import { blockingAnswer } from "../http/blocking-query.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { refusedRead } from "../http/error-handler.js";
import { badRequest, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { parseReadOptions } from "../http/read-options.js";
import { readJsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { singleNamespace } from "../middleware/namespace.js";
import { chainEntriesOf } from "../query/chain-entries.js";
import { parseChainOverrides } from "../query/chain-overrides.js";
import { trustDomainFor } from "../query/trust-domain.js";

/** /v1/discovery-chain/:service (GET, or POST with overrides): the compiled chain, blocking on its entries. */
export function discoveryChainRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const trustDomain = trustDomainFor(ctx.datacenter);
  const handler = (c: Context<ApiEnv>) => chain(ctx, c, trustDomain);
  // `{.*}` so that a bare trailing slash reaches the handler and gets Consul's reason.
  route(app, "/:service{.*}", { GET: handler, POST: handler });
  route(app, "/", { GET: handler, POST: handler });
  return app;
}

async function chain(ctx: RouteContext, c: Context<ApiEnv>, trustDomain: string): Promise<Response> {
  const service = c.req.param("service") ?? "";
  if (service === "") throw badRequest("Missing chain name");
  const ns = singleNamespace(c.get("namespace"));
  const overrides =
    c.req.method === "POST"
      ? parseChainOverrides(
          await readTextLimited(c, ctx.config.maxBodyBytes, (n) => `Request body too large (${n} bytes)`),
        )
      : {};
  if (ctx.authorizer.authorize(c.get("token"), ns, "service", service, "read") !== "allow")
    throw permissionDenied();
  const opts = parseReadOptions(c.get("query"), ctx.random);
  const datacenter = c.get("query").get("compile-dc") || ctx.datacenter;
  // A read that waits is parked (parked.ts): the read and the answer hold nothing of the Context.
  return blockingAnswer(
    ctx,
    c,
    opts,
    (view) => {
      const { entries, reads } = chainEntriesOf(view);
      let compiled: CompiledChain | ChainCompileError;
      try {
        compiled = compileChain({
          serviceName: service,
          namespace: ns,
          datacenter,
          trustDomain,
          entries,
          overrides,
        });
      } catch (err) {
        if (!(err instanceof ChainCompileError)) throw err;
        compiled = err;
      }
      return combine(compiled, ...reads);
    },
    ({ result, meta }) =>
      result instanceof ChainCompileError
        ? refusedRead(badRequest(result.message), meta)
        : // Its targets' namespaces are data: written even when "default", as Consul does.
          readJsonResponse(writeJson({ Chain: result }), meta),
  );
}
