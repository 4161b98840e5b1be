// An in-process agent for the local-agent tests: a real single-node state store (LocalBackend), the real
// HTTP API with the /v1/agent routes, and a LocalAgent with short timings, on a loopback port.
import type { AddressInfo } from "node:net";
import { agentRoutes, createApi, LocalBackend } from "@cairn/api";
import { serve } from "@hono/node-server";
import { buildAgentConfig } from "../../src/config/index.js";
import { AgentEndpoints } from "../../src/local/agent-endpoints.js";
import { type AgentCatalog, storeCatalog } from "../../src/local/catalog.js";
import { LocalAgent, type LocalAgentOptions } from "../../src/local/local-agent.js";
import { agentSelf, storeCoordinate } from "../../src/local/self.js";
import type { NodeIdentity } from "../../src/local/sync-plan.js";
import { AgentTokens } from "../../src/local/tokens.js";
import { meterBackend, meterFetch } from "../../src/metrics/instrument.js";
import { MetricsRegistry } from "../../src/metrics/registry.js";
import { LogHub } from "../../src/monitor/log-hub.js";

export const NODE: NodeIdentity = {
  id: "0b9f2c6e-2c39-4f3a-9d6e-6d1d2b0f9c11",
  name: "node-a",
  address: "127.0.0.1",
  datacenter: "dc1",
  taggedAddresses: { lan: "127.0.0.1", wan: "127.0.0.1" },
  meta: { rack: "r1" },
};

export interface TestAgent {
  url: string;
  backend: LocalBackend;
  local: LocalAgent;
  logs: LogHub;
  metrics: MetricsRegistry;
  req(method: string, path: string, body?: unknown): Promise<Response>;
  json<T = unknown>(path: string): Promise<T>;
  close(): Promise<void>;
}

export async function startTestAgent(
  options: Partial<LocalAgentOptions> & {
    aclEnabled?: boolean;
    dataDir?: string;
    persistTokens?: boolean;
    prometheusRetentionMs?: number;
    config?: { services: unknown[]; checks: unknown[] };
    /** Wraps the agent's catalog (to watch what anti-entropy writes). */
    wrapCatalog?: (catalog: AgentCatalog) => AgentCatalog;
  } = {},
): Promise<TestAgent> {
  const backend = new LocalBackend();
  const logs = new LogHub("info", false, { write: () => true });
  const metrics = new MetricsRegistry({ prometheusRetentionMs: options.prometheusRetentionMs ?? 60_000 });
  const metered = meterBackend(backend, metrics);
  // The API app below, once built: alias checks of catalog nodes query it as a server's agent does its own.
  let appFetch: ((request: Request) => Response | Promise<Response>) | undefined;
  const local = new LocalAgent({
    node: NODE,
    catalog: (options.wrapCatalog ?? ((c) => c))(
      storeCatalog({ backend: metered, datacenter: NODE.datacenter, now: Date.now }),
    ),
    log: logs.logger.child({ component: "agent" }),
    dataDir: options.dataDir,
    enableScriptChecks: false,
    enableLocalScriptChecks: false,
    syncIntervalMs: 60_000,
    syncRetryMs: 200,
    minCheckIntervalMs: 50,
    minDeregisterAfterMs: 100,
    reapIntervalMs: 50,
    catalogFetch: async (request) => {
      if (appFetch === undefined) throw new Error("agent is starting");
      return appFetch(request);
    },
    ...options,
  });
  local.start(options.config ?? { services: [], checks: [] });
  const config = buildAgentConfig(
    { node_name: NODE.name, server: true },
    { dev: true, hostname: NODE.name, clockOffsetMs: 0, configFiles: [] },
  ).config;
  const endpoints = new AgentEndpoints({
    local,
    metrics,
    store: backend.store,
    logs,
    tokens: new AgentTokens(options.dataDir, options.persistTokens ?? false, {}),
    self: () =>
      agentSelf({
        config,
        node: NODE,
        coordinate: storeCoordinate(backend.store, NODE.name),
        services: local.listServices().length,
        checks: local.listChecks(),
        view: undefined,
      }),
    reload: async () => {
      throw new Error("no configuration files to re-read");
    },
  });
  const app = createApi({ backend: metered, nodeName: NODE.name, datacenter: "dc1", logger: logs.logger });
  app.route(
    "/v1/agent",
    agentRoutes(endpoints, {
      nodeName: NODE.name,
      datacenter: "dc1",
      aclEnabled: options.aclEnabled ?? false,
    }),
  );
  appFetch = app.fetch;
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: meterFetch(app.fetch, metrics), port: 0, hostname: "127.0.0.1" }, () =>
      resolve(s),
    );
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const req = (method: string, path: string, body?: unknown) =>
    fetch(url + path, {
      method,
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
  return {
    url,
    backend,
    local,
    logs,
    metrics,
    req,
    json: async <T>(path: string) => {
      const res = await req("GET", path);
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    close: async () => {
      local.stop();
      await new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/** Polls `probe` until it returns true, or fails after `ms`. */
export async function eventually(
  probe: () => Promise<boolean> | boolean,
  ms = 5_000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
