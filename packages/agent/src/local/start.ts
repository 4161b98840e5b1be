import type { ApiEnv } from "@cairn/api";
import {
  type AgentBackend,
  type Authorizer,
  agentRoutes,
  type ClusterBackend,
  type StateReader,
} from "@cairn/api";
import type { Coord } from "@cairn/fsm";
import type { Hono } from "hono";
import type { AgentConfig } from "../config/index.js";
import { type Fetch, meterBackend, meterFetch } from "../metrics/instrument.js";
import { MetricsRegistry } from "../metrics/registry.js";
import type { LogHub } from "../monitor/log-hub.js";
import { AgentEndpoints } from "./agent-endpoints.js";
import type { CatalogFetch } from "./alias-check.js";
import { type AgentCatalog, storeCatalog } from "./catalog.js";
import { systemClock } from "./clock.js";
import { LocalAgent } from "./local-agent.js";
import { agentNodeMeta } from "./node-meta.js";
import { agentSelf, type SelfView, storeCoordinate } from "./self.js";
import type { NodeIdentity } from "./sync-plan.js";
import { AgentTokens } from "./tokens.js";

export interface LocalAgentRuntime extends ClientLocalAgentRuntime {
  /** The cluster backend with its writes metered: what the HTTP API should use. */
  backend: ClusterBackend;
}

/** A client agent's local agent: as a server's, without a cluster backend of its own. */
export interface ClientLocalAgentRuntime {
  /** /v1/agent routes, to mount at `/v1/agent`. */
  routes: Hono<ApiEnv>;
  endpoints: AgentBackend;
  metrics: MetricsRegistry;
  /** The agent's ACL tokens as `/v1/agent/token/:name` last set them (the `default` token, say). */
  tokens: AgentTokens;
  /** Syncs local services and checks with the catalog now. */
  syncNow(): void;
  /** Wraps the API's fetch so every request is timed by route. */
  meterFetch: (fetch: Fetch) => Fetch;
  stop(): void;
}

export interface LocalAgentStart extends CommonStart {
  backend: ClusterBackend;
  /** Raft leadership changes, for the leader-change counter. */
  onLeadership?: (listener: (isLeader: boolean) => void) => void;
}

export interface ClientLocalAgentStart extends CommonStart {
  /** The catalog reached through a server. */
  catalog: AgentCatalog;
  /** The agent's network coordinate, from gossip. */
  coordinate: () => Coord | undefined;
}

interface CommonStart {
  config: AgentConfig;
  /** The agent's identity in the catalog. */
  self: { id: string; name: string; datacenter: string; address: string };
  /** Persistent data directory; undefined in dev mode. */
  dataDir: string | undefined;
  logs: LogHub;
  /** Re-reads the configuration files (reload). */
  reread: () => AgentConfig;
  /** The agent's clock (shifted by -clock-offset in tests). */
  now: () => number;
  /** With ACLs on, the enforcer of the HTTP API (the /v1/agent routes ask it too). */
  authorizer?: Authorizer;
  /** The role's part of `/v1/agent/self` (member record, Stats). */
  selfView?: SelfView;
  /** The cluster's HTTP API as this agent reaches it (alias checks of other nodes query the catalog). */
  catalogFetch?: CatalogFetch;
}

/**
 * Builds and starts the local agent of a server: metrics registry, local services and checks with
 * anti-entropy over the server's own catalog, tokens, and the endpoints object behind the /v1/agent routes.
 */
export function startLocalAgent(s: LocalAgentStart): LocalAgentRuntime {
  const metrics = newRegistry(s.config);
  const backend = meterBackend(s.backend, metrics);
  const store = s.backend.store;
  s.onLeadership?.((isLeader) => {
    metrics.incrCounter("consul.raft.leader.changes");
    if (isLeader) metrics.incrCounter("consul.raft.state.leader");
  });
  const coordinate = () => storeCoordinate(store, s.self.name);
  const catalog = storeCatalog({ backend, datacenter: s.config.datacenter, now: s.now });
  return { backend, ...startAgent(s, metrics, catalog, coordinate, store) };
}

/** The local agent of a client agent: its catalog and coordinate come from elsewhere. */
export function startClientLocalAgent(s: ClientLocalAgentStart): ClientLocalAgentRuntime {
  return startAgent(s, newRegistry(s.config), s.catalog, s.coordinate, undefined);
}

function newRegistry(config: AgentConfig): MetricsRegistry {
  return new MetricsRegistry({ prometheusRetentionMs: config.telemetry.prometheusRetentionMs });
}

function startAgent(
  s: CommonStart,
  metrics: MetricsRegistry,
  catalog: AgentCatalog,
  coordinate: () => Coord | undefined,
  store: StateReader | undefined,
): ClientLocalAgentRuntime {
  const { config } = s;
  const node: NodeIdentity = {
    id: s.self.id,
    name: s.self.name,
    address: s.self.address,
    datacenter: s.self.datacenter,
    // As the server's self-registration writes them, so the two never undo each other.
    taggedAddresses: {
      lan: s.self.address,
      lan_ipv4: s.self.address,
      wan: s.self.address,
      wan_ipv4: s.self.address,
    },
    meta: agentNodeMeta(config.nodeMeta),
  };
  const tokens = new AgentTokens(s.dataDir, config.acl.enableTokenPersistence, {
    default: config.acl.tokens.default,
    agent: config.acl.tokens.agent,
    agent_recovery: config.acl.tokens.agentRecovery,
    replication: config.acl.tokens.replication,
  });
  const local = new LocalAgent({
    node,
    catalog,
    tokens,
    log: s.logs.logger.child({ component: "agent" }),
    clock: { ...systemClock, now: s.now },
    dataDir: s.dataDir,
    enableScriptChecks: config.enableScriptChecks,
    enableLocalScriptChecks: config.enableLocalScriptChecks,
    ...(s.catalogFetch ? { catalogFetch: s.catalogFetch } : {}),
  });
  local.start({ services: config.services, checks: config.checks });
  const endpoints = new AgentEndpoints({
    local,
    metrics,
    ...(store ? { store } : {}),
    logs: s.logs,
    tokens,
    self: () =>
      agentSelf({
        config,
        node,
        coordinate: coordinate(),
        services: local.listServices().length,
        checks: local.listChecks(),
        view: s.selfView,
      }),
    reload: async () => {
      const next = s.reread();
      local.reloadConfig({ services: next.services, checks: next.checks });
      s.logs.setLevel(next.logLevel);
    },
  });
  return {
    endpoints,
    metrics,
    tokens,
    routes: agentRoutes(endpoints, {
      nodeName: config.nodeName,
      datacenter: config.datacenter,
      aclEnabled: config.acl.enabled,
      ...(s.authorizer ? { authorizer: s.authorizer } : {}),
    }),
    syncNow: () => local.syncNow(),
    meterFetch: (fetch) => meterFetch(fetch, metrics),
    stop: () => local.stop(),
  };
}
