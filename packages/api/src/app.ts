import { Hono } from "hono";
import { aclsDisabled } from "./acl/request.js";
import { httpAuthMethodIO } from "./auth-methods/io.js";
import type { ApiDeps } from "./backend.js";
import type { ApiEnv } from "./http/env.js";
import { handleError, handleNotFound } from "./http/error-handler.js";
import { unpark } from "./http/parked.js";
import { resolveDeps } from "./http/route-context.js";
import { primaryWrites } from "./middleware/primary-writes.js";
import { requestContext } from "./middleware/request-context.js";
import { EXECUTE_REMOTE_PATH } from "./query/failover.js";
import { aclRoutes } from "./routes/acl.js";
import { authMethodRoutes } from "./routes/auth-method.js";
import { catalogRoutes } from "./routes/catalog.js";
import { configRoutes } from "./routes/config.js";
import { coordinateRoutes } from "./routes/coordinate.js";
import { discoveryChainRoutes } from "./routes/discovery-chain.js";
import { eventRoutes } from "./routes/event.js";
import { healthRoutes } from "./routes/health.js";
import { kvRoutes } from "./routes/kv.js";
import { namespaceListRoutes, namespaceRoutes } from "./routes/namespace.js";
import { queryRemoteRoutes, queryRoutes } from "./routes/query.js";
import { sessionRoutes } from "./routes/session.js";
import { snapshotRoutes } from "./routes/snapshot.js";
import { statusRoutes } from "./routes/status.js";
import { txnRoutes } from "./routes/txn.js";

/** The /v1 HTTP API for KV, sessions, transactions, status and snapshots over a cluster backend. */
export function createApi(deps: ApiDeps): Hono<ApiEnv> {
  const ctx = resolveDeps(deps);
  const app = new Hono<ApiEnv>();
  const acl = ctx.acl;
  app.use(
    requestContext(
      ctx.datacenter,
      ctx.nodeName,
      ctx.logger,
      () => performance.now(),
      acl && ((secret) => acl.tokenNamespace(secret)),
    ),
  );

  if (ctx.primaryDatacenter !== ctx.datacenter) {
    const toPrimary = primaryWrites(ctx);
    for (const path of ["/v1/acl/*", "/v1/config", "/v1/config/*"]) app.use(path, toPrimary);
  }
  app.route("/v1/kv", kvRoutes(ctx));
  app.route("/v1/session", sessionRoutes(ctx));
  app.route("/v1/txn", txnRoutes(ctx));
  app.route("/v1/status", statusRoutes(ctx));
  app.route("/v1/snapshot", snapshotRoutes(ctx));
  app.route("/v1/catalog", catalogRoutes(ctx));
  app.route("/v1/health", healthRoutes(ctx));
  app.route("/v1/coordinate", coordinateRoutes(ctx));
  app.route("/v1/config", configRoutes(ctx));
  if (acl === undefined) app.use("/v1/acl/*", aclsDisabled);
  app.route("/v1/acl", aclRoutes(ctx));
  app.route("/v1/acl", authMethodRoutes(ctx, deps.authMethodIO ?? httpAuthMethodIO));
  app.route("/v1/namespace", namespaceRoutes(ctx));
  app.route("/v1/namespaces", namespaceListRoutes(ctx));
  app.route("/v1/query", queryRoutes(ctx));
  app.route(EXECUTE_REMOTE_PATH, queryRemoteRoutes(ctx));
  app.route("/v1/discovery-chain", discoveryChainRoutes(ctx));
  app.route("/v1/event", eventRoutes(ctx, deps.events));

  app.onError(handleError);
  app.notFound(handleNotFound);
  // A held blocking query answers Hono with a placeholder (parked.ts); whoever calls the app gets its answer.
  const honoFetch = app.fetch;
  app.fetch = (request, env, executionCtx) => unpark(honoFetch(request, env, executionCtx));
  return app;
}
