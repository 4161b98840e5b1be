import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AclEnforcer, createApi, operatorRoutes } from "@cairn/api";
import type { Logger } from "pino";
import { runClientAgent } from "./client/run-client.js";
import { type AgentConfig, ConfigError, loadAgentConfig } from "./config/index.js";
import { HttpListeners } from "./http-listener.js";
import { type LocalAgentRuntime, startLocalAgent } from "./local/start.js";
import { meterRaft } from "./metrics/raft-timing.js";
import { LogHub } from "./monitor/log-hub.js";
import { writePidFile } from "./pid-file.js";
import { CairnServer } from "./server/server.js";
import { shutdownSignal } from "./signals.js";

/**
 * `cairn agent ...`: loads the configuration, runs a server and its HTTP API until SIGINT or SIGTERM, then
 * shuts down in order (HTTP, Raft, pid file, the dev data directory). Resolves with the exit code.
 */
export async function runAgent(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let config: AgentConfig;
  let warnings: readonly string[];
  try {
    ({ config, warnings } = loadAgentConfig(argv, env));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`==> ${err.message}\n`);
    return 1;
  }
  if (!config.server)
    return runClientAgent({ config, warnings, reread: () => loadAgentConfig(argv, env).config });
  const logs = new LogHub(config.logLevel, config.logJson);
  const log = logs.logger;
  for (const warning of warnings) log.warn(warning);

  // Dev mode keeps nothing: Raft runs in a temporary directory removed at exit.
  const devDir = config.dev ? mkdtempSync(join(tmpdir(), "cairn-dev-")) : undefined;
  const dataDir = devDir ?? config.dataDir;
  if (dataDir === undefined) {
    process.stderr.write("==> data_dir is required in server mode (-data-dir)\n");
    return 1;
  }

  const signals = shutdownSignal(
    (signal) => {
      log.warn({ signal }, "second signal received, exiting without a graceful shutdown");
      process.exit(1);
    },
    // SIGHUP reloads the configuration, as /v1/agent/reload does.
    () =>
      void local?.endpoints.reload().then(
        () => log.info("configuration reloaded (SIGHUP)"),
        (err: Error) => log.error({ err: err.message }, "configuration reload failed"),
      ),
  );
  let removePid: (() => void) | undefined;
  let server: CairnServer | undefined;
  let http: HttpListeners | undefined;
  let local: LocalAgentRuntime | undefined;
  let code = 0;
  try {
    removePid = config.pidFile ? writePidFile(config.pidFile) : undefined;
    // -clock-offset (tests only) skews this agent's clock, as Consul's flag does.
    const now = () => Date.now() + config.clockOffsetMs;
    server = await CairnServer.start({ config, dataDir, log, now });
    const fatal = new Promise<Error>((resolve) => server?.once("fatal", resolve));
    const acl = config.acl.enabled
      ? new AclEnforcer({
          store: server.backend.store,
          datacenter: config.datacenter,
          primaryDatacenter: config.primaryDatacenter,
          defaultPolicy: config.acl.defaultPolicy,
          defaultToken: () => local?.tokens.get("default") || config.acl.tokens.default || "",
          clock: now,
        })
      : undefined;
    local = startLocalAgent({
      config,
      self: server.self,
      backend: server.backend,
      dataDir: devDir ? undefined : dataDir,
      logs,
      now,
      reread: () => loadAgentConfig(argv, env).config,
      onLeadership: (listener) => server?.on("leadership", listener),
      ...(acl ? { authorizer: acl } : {}),
    });
    meterRaft(server, local.metrics);
    const app = createApi({
      backend: local.backend,
      nodeName: config.nodeName,
      datacenter: config.datacenter,
      config: {
        sessionTtlMinMs: config.sessionTtlMinMs,
        kvMaxValueBytes: config.limits.kvMaxValueSize,
        txnMaxReqBytes: config.limits.txnMaxReqLen,
      },
      logger: log.child({ component: "http" }),
      now,
      ...(acl ? { acl } : {}),
    });
    app.route("/v1/operator", operatorRoutes(server.admin, acl));
    app.route("/v1/agent", local.routes);
    if (config.ports.http >= 0)
      http = await HttpListeners.start(local.meterFetch(app.fetch), config.addresses.http, config.ports.http);
    announce(log, config, server, http, devDir);
    const outcome = await Promise.race([signals.received, fatal]);
    if (outcome instanceof Error) code = 1;
    else log.info({ signal: outcome }, "caught signal, shutting down");
  } catch (err) {
    log.error({ err: (err as Error).message }, "agent failed to start");
    code = 1;
  } finally {
    await http?.close();
    local?.stop();
    await server?.stop().catch((err: Error) => log.error({ err: err.message }, "stopping the server failed"));
    removePid?.();
    if (devDir) rmSync(devDir, { recursive: true, force: true });
    signals.dispose();
    log.info("agent stopped");
    log.flush?.();
  }
  return code;
}

function announce(
  log: Logger,
  config: AgentConfig,
  server: CairnServer,
  http: HttpListeners | undefined,
  devDir: string | undefined,
): void {
  log.info(
    {
      node: config.nodeName,
      id: server.self.id,
      datacenter: config.datacenter,
      server: true,
      bootstrap: config.bootstrap,
      bootstrapExpect: config.bootstrapExpect,
      http: http?.addresses() ?? [],
      serverAddress: server.serverAddress,
      serfLanPort: server.joinPort,
      dataDir: devDir ?? config.dataDir,
    },
    devDir
      ? "Cairn agent running in dev mode: nothing is kept, data lives in a temporary directory removed at exit"
      : "Cairn agent running",
  );
}
