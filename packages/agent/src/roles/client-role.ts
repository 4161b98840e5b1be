import { AgentGossip } from "../agent-gossip.js";
import type { AgentRole, RoleContext } from "../agent-process.js";
import { AgentCache } from "../cache/agent-cache.js";
import { ClientAclEnforcer } from "../client/acl/client-enforcer.js";
import { RemoteTokens } from "../client/acl/remote-tokens.js";
import { clientFetch } from "../client/client-app.js";
import type { AgentConfig } from "../config/index.js";
import { type ClientLocalAgentRuntime, startClientLocalAgent } from "../local/start.js";
import type { CoordinateUpdate } from "../membership/index.js";
import { advertiseHost } from "../server/addresses.js";
import { resolveNodeId } from "../server/node-identity.js";
import { tunnelAclResolve } from "../tunnel/acl-calls.js";
import { tunnelCatalog } from "../tunnel/catalog-calls.js";
import { TunnelPool } from "../tunnel/pool.js";
import { clientSelfView } from "./self-view.js";

export interface ClientRoleOptions {
  dataDir: string;
  /** Re-reads the configuration files (reload). */
  reread: () => AgentConfig;
}

/**
 * `cairn agent` without `-server`: a client agent. It gossips in the LAN pool, keeps no Raft state, answers
 * `/v1/agent/*` and `/v1/event/*` itself and sends every other request to a live server through the tunnel
 * on the server RPC port.
 */
export async function startClientRole(ctx: RoleContext, o: ClientRoleOptions): Promise<AgentRole> {
  const { config, log, now } = ctx;
  let gossip: AgentGossip | undefined;
  let local: ClientLocalAgentRuntime | undefined;
  const defaultToken = () => local?.tokens.get("default") || config.acl.tokens.default || "";
  // The agent's own calls (catalog reads, coordinates) use the agent token, else the default one, as Consul's;
  // anti-entropy writes each entry with its own token.
  const recoveryToken = () => local?.tokens.get("agent_recovery") || config.acl.tokens.agentRecovery || "";
  const agentToken = () => local?.tokens.get("agent") || config.acl.tokens.agent || defaultToken();
  const pool = new TunnelPool({
    servers: () =>
      (gossip?.membership.servers() ?? []).flatMap((m) =>
        m.rpcAddress ? [{ name: m.name, rpcAddress: m.rpcAddress, id: m.id }] : [],
      ),
    defaultToken,
    agentNode: config.nodeName,
    count: (name) => local?.metrics.incrCounter(name),
    tls: () => ctx.tls.outgoing(),
    log: log.child({ component: "client.rpc" }),
  });
  ctx.onStop(() => pool.close());
  const nodeId = await resolveNodeId(config.nodeId, o.dataDir);
  const acl = config.acl.enabled ? clientAcl(config, pool, { defaultToken, recoveryToken }, ctx) : undefined;
  gossip = await AgentGossip.start({
    config,
    nodeId,
    dataDir: o.dataDir,
    log,
    sendCoordinate: (update) => sendCoordinate(pool, update, agentToken()),
    localServices: () => local?.endpoints.services() ?? [],
    shutdown: ctx.shutdown,
  });
  const { membership } = gossip;
  const started = gossip;
  ctx.onStop((signal) => started.stop(signal));
  local = startClientLocalAgent({
    config,
    self: {
      id: nodeId,
      name: config.nodeName,
      datacenter: config.datacenter,
      address: advertiseHost(config.bindAddr, config.advertiseAddr),
    },
    catalog: tunnelCatalog(pool, agentToken),
    catalogFetch: (request) => pool.forward(request),
    coordinate: () => membership.localCoordinate(),
    dataDir: o.dataDir,
    logs: ctx.logs,
    now,
    reread: o.reread,
    selfView: clientSelfView(config, membership),
    ...(acl ? { authorizer: acl } : {}),
  });
  const runtime = local;
  ctx.onStop(() => runtime.stop());
  // A server that (re)appears gets this agent's state at once, as Consul syncs when a server joins.
  membership.onChange((member) => {
    if (member.role !== "server") return;
    if (member.status === "alive") runtime.syncNow();
    else pool.serverGone(member.name);
  });
  gossip.meter(local.metrics);
  const fetch = clientFetch({
    nodeName: config.nodeName,
    datacenter: config.datacenter,
    agentRoutes: local.routes,
    membershipRoutes: gossip.routes(acl),
    events: gossip.events,
    pool,
    ...(acl ? { acl } : {}),
    logger: log.child({ component: "http" }),
    now,
  });
  // ?cached reads answered here, refreshed through the servers by one blocking query per result.
  const cache = new AgentCache({ upstream: fetch, log: log.child({ component: "cache" }), defaultToken });
  ctx.onStop(() => cache.close());
  return {
    fetch: local.meterFetch(cache.fetch),
    // DNS reads the cluster directly: it keeps its own short-lived cache (dns_config.use_cache).
    dns: { fetch, metrics: local.metrics },
    reload: () => runtime.endpoints.reload(),
    announce: (http) =>
      log.info(
        {
          node: config.nodeName,
          id: nodeId,
          datacenter: config.datacenter,
          server: false,
          http,
          serfLan: membership.lanAddress,
          dataDir: o.dataDir,
        },
        "Cairn agent running (client)",
      ),
  };
}

/** The agent's coordinate to the servers, as Consul clients send theirs (Coordinate.Update). */
async function sendCoordinate(pool: TunnelPool, update: CoordinateUpdate, token: string): Promise<void> {
  const response = await pool.forward(
    new Request("http://agent/v1/coordinate/update", {
      method: "PUT",
      body: JSON.stringify(update),
      headers: token ? { "x-consul-token": token } : {},
    }),
  );
  if (!response.ok) throw new Error(await response.text());
}

/**
 * Tokens resolved through a server and cached for `acl.token_ttl` (policy_ttl, role_ttl), `acl.down_policy`
 * when none answers; the agent recovery token is resolved locally.
 */
function clientAcl(
  config: AgentConfig,
  pool: TunnelPool,
  agentTokens: { defaultToken: () => string; recoveryToken: () => string },
  { now, log }: RoleContext,
): ClientAclEnforcer {
  const aclLog = log.child({ component: "acl" });
  const tokens = new RemoteTokens({
    resolve: tunnelAclResolve(pool),
    // One answer carries the token with its policies and roles: it is kept no longer than any of their TTLs.
    ttlMs: Math.min(config.acl.tokenTtlMs, config.acl.policyTtlMs, config.acl.roleTtlMs),
    downPolicy: config.acl.downPolicy,
    clock: now,
    onError: (err) => aclLog.warn({ err: err.message }, "cannot resolve an ACL token through a server"),
  });
  return new ClientAclEnforcer({
    tokens,
    datacenter: config.datacenter,
    primaryDatacenter: config.primaryDatacenter,
    defaultPolicy: config.acl.defaultPolicy,
    ...agentTokens,
    nodeName: config.nodeName,
    clock: now,
  });
}
