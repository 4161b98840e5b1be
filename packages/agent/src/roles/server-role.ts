import { join } from "node:path";
import {
  AclEnforcer,
  createApi,
  keyringRoutes,
  operatorRoutes,
  primaryFetchOver,
  shareBlockingQueries,
} from "@cairn/api";
import { COMMAND_VERSION } from "@cairn/fsm";
import { AgentGossip } from "../agent-gossip.js";
import type { AgentRole, RoleContext } from "../agent-process.js";
import { AgentCache } from "../cache/agent-cache.js";
import { RemoteTokens } from "../client/acl/remote-tokens.js";
import type { AgentConfig } from "../config/index.js";
import { primaryTokenResolve } from "../federation/primary-token-resolve.js";
import { SecondaryAclEnforcer } from "../federation/secondary-acl-enforcer.js";
import { WanForwarder } from "../federation/wan-forwarder.js";
import { type LocalAgentRuntime, startLocalAgent } from "../local/start.js";
import type { Fetch } from "../metrics/instrument.js";
import { meterRaft } from "../metrics/raft-timing.js";
import { deferredJoinHandlers, joinRoute } from "../server/join/join-listener.js";
import { JOIN_PATH } from "../server/join/protocol.js";
import { resolveNodeId } from "../server/node-identity.js";
import { ReplicationStatusSource } from "../server/replication-status.js";
import { CairnServer } from "../server/server.js";
import { requestToken } from "../tunnel/request-token.js";
import { serverSelfView } from "./self-view.js";

/** Consul's file name: an operator writes the reset index there to allow one more ACL bootstrap. */
const ACL_BOOTSTRAP_RESET = "acl-bootstrap-reset";

export interface ServerRoleOptions {
  /** Where Raft keeps its state (a temporary directory in dev mode). */
  dataDir: string;
  /** Dev mode: nothing persists, so the local agent keeps no state either. */
  ephemeral: boolean;
  /** Re-reads the configuration files (reload). */
  reread: () => AgentConfig;
}

/**
 * A server agent: gossip (whose LAN port also serves the servers' join exchange), Raft and the state machine,
 * the local agent, and the whole HTTP API over them; client agents' requests arrive through the server port.
 */
export async function startServerRole(ctx: RoleContext, o: ServerRoleOptions): Promise<AgentRole> {
  const { config, log, now } = ctx;
  let server: CairnServer | undefined;
  let local: LocalAgentRuntime | undefined;
  let fetch: Fetch | undefined;
  const nodeId = await resolveNodeId(config.nodeId, o.dataDir);
  const gossip = await AgentGossip.start({
    config,
    nodeId,
    serverPort: config.ports.server,
    // Answered once the server below exists; a peer asking earlier is told so and tries again.
    lanRoutes: {
      [JOIN_PATH]: joinRoute(
        deferredJoinHandlers(() => server?.joinHandlers()),
        log,
      ),
    },
    dataDir: o.ephemeral ? undefined : o.dataDir,
    log,
    sendCoordinate: async (update) => {
      await server?.backend.apply({ v: COMMAND_VERSION, type: "coordinate.batch-update", updates: [update] });
    },
    localServices: () => local?.endpoints.services() ?? [],
    shutdown: ctx.shutdown,
  });
  ctx.onStop((signal) => gossip.stop(signal));
  let wan: WanForwarder | undefined;
  // A secondary without token replication asks the primary for tokens it does not hold, for its HTTP API
  // and its client agents alike (one cache).
  const secondaryTokens =
    config.acl.enabled &&
    config.datacenter !== config.primaryDatacenter &&
    !config.acl.enableTokenReplication;
  const remoteTokens = secondaryTokens
    ? new RemoteTokens({
        resolve: primaryTokenResolve(
          (request) =>
            wan?.forward(config.primaryDatacenter, request) ??
            Promise.reject(new Error(`No path to datacenter ${config.primaryDatacenter}`)),
          config.primaryDatacenter,
        ),
        ttlMs: Math.min(config.acl.tokenTtlMs, config.acl.policyTtlMs, config.acl.roleTtlMs),
        downPolicy: config.acl.downPolicy,
        clock: now,
        onError: (err) =>
          log.warn(
            { component: "acl", err: err.message },
            "cannot resolve an ACL token in the primary datacenter",
          ),
      })
    : undefined;
  server = await CairnServer.start({
    ...(remoteTokens ? { remoteTokens } : {}),
    config,
    dataDir: o.dataDir,
    log,
    now,
    membership: gossip.membership,
    tls: ctx.tls.transportTls(),
    // Client agents are answered once the HTTP app below exists; until then they are told to retry.
    clientFetch: (request) => fetch?.(request) ?? new Response("agent is starting", { status: 503 }),
    // Replication reads the primary through this server's own API: `?dc=` forwarding carries them.
    primary: primaryFetchOver(
      async (request) => fetch?.(request) ?? new Response("agent is starting", { status: 503 }),
      config.primaryDatacenter,
      () => local?.tokens.get("replication") || config.acl.tokens.replication,
    ),
  });
  const started = server;
  ctx.onStop(() => started.stop());
  const fatal = new Promise<Error>((resolve) => started.once("fatal", resolve));
  const aclOptions = {
    store: server.backend.store,
    datacenter: config.datacenter,
    primaryDatacenter: config.primaryDatacenter,
    defaultPolicy: config.acl.defaultPolicy,
    defaultToken: () => local?.tokens.get("default") || config.acl.tokens.default || "",
    clock: now,
  };
  const acl = !config.acl.enabled
    ? undefined
    : remoteTokens
      ? new SecondaryAclEnforcer({ ...aclOptions, tokens: remoteTokens })
      : new AclEnforcer({ ...aclOptions, catchUp: () => server.backend.readBarrier("default") });
  local = startLocalAgent({
    config,
    self: server.self,
    backend: server.backend,
    dataDir: o.ephemeral ? undefined : o.dataDir,
    logs: ctx.logs,
    now,
    reread: o.reread,
    onLeadership: (listener) => started.on("leadership", listener),
    selfView: serverSelfView(config, gossip.membership, () => started),
    // The agent's own API app, once it exists (alias checks start querying only after registration).
    catalogFetch: async (request) => {
      if (fetch === undefined) throw new Error("agent is starting");
      return fetch(request);
    },
    ...(acl ? { authorizer: acl } : {}),
  });
  const runtime = local;
  ctx.onStop(() => runtime.stop());
  meterRaft(server, local.metrics);
  gossip.meter(local.metrics);
  const defaultToken = () => local?.tokens.get("default") || config.acl.tokens.default || "";
  const replicationStatus = new ReplicationStatusSource(
    started,
    () => local?.tokens.get("replication") || config.acl.tokens.replication || defaultToken(),
    log.child({ component: "replication" }),
  );
  ctx.onStop(() => replicationStatus.close());
  const forwarder = new WanForwarder({
    datacenter: config.datacenter,
    servers: (dc) => gossip.membership.datacenterServers(dc),
    defaultToken,
    tls: (dc) => ctx.tls.outgoingTo(dc),
    log: log.child({ component: "wan" }),
  });
  wan = forwarder;
  ctx.onStop(() => forwarder.close());
  const app = createApi({
    backend: local.backend,
    nodeName: config.nodeName,
    datacenter: config.datacenter,
    primaryDatacenter: config.primaryDatacenter,
    tokenReplication: config.acl.enableTokenReplication,
    config: {
      sessionTtlMinMs: config.sessionTtlMinMs,
      kvMaxValueBytes: config.limits.kvMaxValueSize,
      txnMaxReqBytes: config.limits.txnMaxReqLen,
    },
    logger: log.child({ component: "http" }),
    now,
    events: gossip.events,
    datacenters: () => gossip.membership.datacenters(),
    coordinateDatacenters: () => gossip.membership.datacenterCoordinates(),
    forwardDatacenter: forwarder.forward,
    // Relative in dev mode, as Consul's (whose dev agent has no data directory): the current directory.
    aclBootstrapResetFile: o.ephemeral ? ACL_BOOTSTRAP_RESET : join(o.dataDir, ACL_BOOTSTRAP_RESET),
    replication: (stale) => replicationStatus.status(stale),
    ...(acl ? { acl } : {}),
  });
  app.route("/v1/operator", operatorRoutes(server.admin, acl));
  app.route("/v1/operator", keyringRoutes(gossip.membership, acl));
  app.route("/v1/agent", local.routes);
  app.route("/v1/agent", gossip.routes(acl));
  // Requests naming another datacenter go there before the app sees them: from this agent's HTTP clients,
  // its DNS and its client agents alike.
  // With ACLs, the request's token is made ready first: resolved through the primary in a secondary
  // datacenter, caught up with the leader when this server does not hold it yet.
  const prepared: Fetch =
    acl === undefined
      ? app.fetch
      : (request, env) => {
          const ready = acl.prepare(requestToken(request.url, request.headers), request.url);
          return ready === undefined ? app.fetch(request, env) : ready.then(() => app.fetch(request, env));
        };
  const routed = forwarder.wrap(prepared);
  fetch = routed;
  // ?cached reads of this agent's own HTTP clients; client agents' requests (through `fetch`) bypass it.
  const cache = new AgentCache({ upstream: routed, log: log.child({ component: "cache" }), defaultToken });
  ctx.onStop(() => cache.close());
  return {
    // Identical blocking queries from HTTP clients share one run (client agents share theirs before the tunnel).
    fetch: local.meterFetch(shareBlockingQueries(cache.fetch)),
    // DNS reads the cluster directly: it keeps its own short-lived cache (dns_config.use_cache).
    dns: { fetch: routed, metrics: local.metrics },
    fatal,
    reload: () => runtime.endpoints.reload(),
    announce: (http) =>
      log.info(
        {
          node: config.nodeName,
          id: started.self.id,
          datacenter: config.datacenter,
          server: true,
          bootstrap: config.bootstrap,
          bootstrapExpect: config.bootstrapExpect,
          http,
          serverAddress: started.serverAddress,
          serfLan: gossip.membership.lanAddress,
          serfWan: gossip.membership.wanAddress,
          dataDir: o.dataDir,
        },
        o.ephemeral
          ? "Cairn agent running in dev mode: nothing is kept, data lives in a temporary directory removed at exit"
          : "Cairn agent running",
      ),
  };
}
