import type { Logger } from "pino";
import type { AgentConfig } from "../config/index.js";
import { HttpListeners } from "../http-listener.js";
import { type ClientLocalAgentRuntime, startClientLocalAgent } from "../local/start.js";
import { AgentMembership, CoordinateSender, membershipBackend } from "../membership/index.js";
import { LogHub } from "../monitor/log-hub.js";
import { writePidFile } from "../pid-file.js";
import { advertiseHost } from "../server/addresses.js";
import { resolveNodeId } from "../server/node-identity.js";
import { shutdownSignal } from "../signals.js";
import { tunnelCatalog } from "../tunnel/catalog-calls.js";
import { TunnelPool } from "../tunnel/pool.js";
import { clientFetch } from "./client-app.js";

export interface ClientAgentStart {
  config: AgentConfig;
  warnings: readonly string[];
  /** Re-reads the configuration files (reload, SIGHUP). */
  reread: () => AgentConfig;
}

/**
 * `cairn agent` without `-server`: a client agent. It gossips in the LAN pool, keeps no Raft state, serves
 * `/v1/agent/*` itself and sends every other request to a live server through the tunnel on the server RPC
 * port. Runs until SIGINT/SIGTERM or /v1/agent/leave, leaving the pool gracefully as configured (clients
 * leave on both by default), and resolves with the exit code.
 */
export async function runClientAgent(s: ClientAgentStart): Promise<number> {
  const { config } = s;
  if (config.acl.enabled) {
    process.stderr.write(
      "==> ACLs on client agents are not supported yet: run client agents with ACLs disabled, or use a server\n",
    );
    return 1;
  }
  const dataDir = config.dataDir;
  if (dataDir === undefined) {
    process.stderr.write("==> data_dir is required (-data-dir)\n");
    return 1;
  }
  const logs = new LogHub(config.logLevel, config.logJson);
  const log = logs.logger;
  for (const warning of s.warnings) log.warn(warning);

  let local: ClientLocalAgentRuntime | undefined;
  let left: () => void = () => {};
  const leftPool = new Promise<"left">((resolve) => {
    left = () => resolve("left");
  });
  const signals = shutdownSignal(
    (signal) => {
      log.warn({ signal }, "second signal received, exiting without a graceful shutdown");
      process.exit(1);
    },
    () =>
      void local?.endpoints.reload().then(
        () => log.info("configuration reloaded (SIGHUP)"),
        (err: Error) => log.error({ err: err.message }, "configuration reload failed"),
      ),
  );
  let removePid: (() => void) | undefined;
  let membership: AgentMembership | undefined;
  let http: HttpListeners | undefined;
  let coordinates: CoordinateSender | undefined;
  const now = () => Date.now() + config.clockOffsetMs;
  const pool = new TunnelPool({
    servers: () => {
      const servers = membership?.servers() ?? [];
      return servers.flatMap((m) => (m.rpcAddress ? [{ name: m.name, rpcAddress: m.rpcAddress }] : []));
    },
    defaultToken: () => local?.tokens.get("default") || config.acl.tokens.default || "",
    count: (name) => local?.metrics.incrCounter(name),
    log: log.child({ component: "client.rpc" }),
  });
  let code = 0;
  let leaving = false;
  try {
    removePid = config.pidFile ? writePidFile(config.pidFile) : undefined;
    const nodeId = await resolveNodeId(config.nodeId, dataDir);
    membership = await AgentMembership.start({
      config,
      nodeId,
      dataDir,
      log: log.child({ component: "serf.lan" }),
    });
    const gossip = membership;
    local = startClientLocalAgent({
      config,
      self: {
        id: nodeId,
        name: config.nodeName,
        datacenter: config.datacenter,
        address: advertiseHost(config.bindAddr, config.advertiseAddr),
      },
      catalog: tunnelCatalog(pool),
      coordinate: () => gossip.localCoordinate(),
      dataDir,
      logs,
      now,
      reread: s.reread,
    });
    // A server that (re)appears gets this agent's state at once, as Consul syncs when a server joins.
    gossip.onChange((member) => {
      if (member.role === "server" && member.status === "alive") local?.syncNow();
    });
    const agentToken = () => local?.tokens.get("agent") || config.acl.tokens.agent || "";
    coordinates = new CoordinateSender({
      node: config.nodeName,
      coordinate: () => gossip.localCoordinate(),
      clusterSize: () => gossip.lanMembers().length,
      send: (update) => sendCoordinate(pool, update, agentToken()),
      log: log.child({ component: "agent" }),
    });
    coordinates.start();
    const fetch = clientFetch({
      nodeName: config.nodeName,
      datacenter: config.datacenter,
      agentRoutes: local.routes,
      membership: membershipBackend(gossip, () => {
        leaving = true;
        left();
      }),
      pool,
      logger: log.child({ component: "http" }),
      now,
    });
    if (config.ports.http >= 0)
      http = await HttpListeners.start(local.meterFetch(fetch), config.addresses.http, config.ports.http);
    announce(log, config, nodeId, gossip, http);
    const outcome = await Promise.race([signals.received, leftPool]);
    if (outcome === "left") {
      log.info("left the cluster (/v1/agent/leave), shutting down");
    } else {
      log.info({ signal: outcome }, "caught signal, shutting down");
      const leave = outcome === "SIGTERM" ? config.leaveOnTerminate : !config.skipLeaveOnInterrupt;
      if (leave && !leaving) {
        log.info("gracefully leaving the cluster");
        await gossip.leave().catch((err: Error) => log.warn({ err: err.message }, "graceful leave failed"));
      }
    }
  } catch (err) {
    log.error({ err: (err as Error).message }, "agent failed to start");
    code = 1;
  } finally {
    await http?.close();
    coordinates?.stop();
    local?.stop();
    pool.close();
    await membership
      ?.close()
      .catch((err: Error) => log.error({ err: err.message }, "stopping gossip failed"));
    removePid?.();
    signals.dispose();
    log.info("agent stopped");
    log.flush?.();
  }
  return code;
}

/** The agent's coordinate to the servers, as Consul clients send theirs (Coordinate.Update). */
async function sendCoordinate(pool: TunnelPool, update: object, token: string): Promise<void> {
  const response = await pool.forward(
    new Request("http://agent/v1/coordinate/update", {
      method: "PUT",
      body: JSON.stringify(update),
      headers: token ? { "x-consul-token": token } : {},
    }),
  );
  if (!response.ok) throw new Error(await response.text());
}

function announce(
  log: Logger,
  config: AgentConfig,
  nodeId: string,
  membership: AgentMembership,
  http: HttpListeners | undefined,
): void {
  log.info(
    {
      node: config.nodeName,
      id: nodeId,
      datacenter: config.datacenter,
      server: false,
      http: http?.addresses() ?? [],
      serfLan: membership.lanAddress,
      dataDir: config.dataDir,
    },
    "Cairn agent running (client)",
  );
}
