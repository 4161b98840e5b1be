import { httpEdge } from "@cairn/api";
import type { Logger } from "pino";
import type { AgentConfig } from "./config/index.js";
import { type DnsBackend, startDns } from "./dns-listeners.js";
import { HttpListeners } from "./http-listener.js";
import type { Fetch } from "./metrics/instrument.js";
import { LogHub } from "./monitor/log-hub.js";
import { writePidFile } from "./pid-file.js";
import { withRootPage } from "./root-page.js";
import { shutdownSignal } from "./signals.js";
import type { AgentTls } from "./tls/agent-tls.js";

/** What a role (server or client) is given while it starts. */
export interface RoleContext {
  config: AgentConfig;
  logs: LogHub;
  log: Logger;
  /** Certificates for the server RPC port and HTTPS, reloaded with the configuration. */
  tls: AgentTls;
  /** The agent's clock: `-clock-offset` (tests only) skews it, as Consul's flag does. */
  now: () => number;
  /** Registers a teardown step; they run in reverse order at shutdown, also when a later start step failed. */
  onStop(step: (signal: NodeJS.Signals | undefined) => Promise<void> | void): void;
  /** Ends the agent, as a graceful leave through /v1/agent/leave does. */
  shutdown(): void;
}

/** A started role: the HTTP API it serves, and what can end it. */
export interface AgentRole {
  fetch: Fetch;
  /** What the DNS interface answers from. */
  dns: DnsBackend;
  /** Resolves when the role cannot go on (a server whose Raft failed). */
  fatal?: Promise<Error>;
  /** SIGHUP: reloads what the configuration may change at run time. */
  reload(): Promise<void>;
  /** Logged once the agent runs. */
  announce(http: string[]): void;
}

/**
 * The life of an agent process around its role: logs, pid file, signals (SIGINT/SIGTERM end it, a second one
 * exits at once, SIGHUP reloads), the HTTP listeners, and the ordered shutdown. Resolves with the exit code.
 */
export async function runAgentProcess(
  config: AgentConfig,
  tls: AgentTls,
  warnings: readonly string[],
  start: (ctx: RoleContext) => Promise<AgentRole>,
): Promise<number> {
  const logs = new LogHub(config.logLevel, config.logJson);
  const log = logs.logger;
  for (const warning of warnings) log.warn(warning);
  let role: AgentRole | undefined;
  let shutdown: () => void = () => {};
  const left = new Promise<"left">((resolve) => {
    shutdown = () => resolve("left");
  });
  const signals = shutdownSignal(
    (signal) => {
      log.warn({ signal }, "second signal received, exiting without a graceful shutdown");
      process.exit(1);
    },
    () =>
      void role?.reload().then(
        () => log.info("configuration reloaded (SIGHUP)"),
        (err: Error) => log.error({ err: err.message }, "configuration reload failed"),
      ),
  );
  const steps: ((signal: NodeJS.Signals | undefined) => Promise<void> | void)[] = [];
  let http: HttpListeners | undefined;
  let https: HttpListeners | undefined;
  let dns: Awaited<ReturnType<typeof startDns>>;
  let signal: NodeJS.Signals | undefined;
  let code = 0;
  try {
    role = await start({
      config,
      logs,
      log,
      tls,
      now: () => Date.now() + config.clockOffsetMs,
      onStop: (step) => steps.push(step),
      shutdown: () => shutdown(),
    });
    const unix = {
      settings: config.unixSockets,
      onReplace: (path: string) => log.warn({ path }, "Replacing socket"),
    };
    if (config.ports.http >= 0)
      http = await HttpListeners.start(
        httpEdge(withRootPage(role.fetch, config)),
        config.addresses.http,
        config.ports.http,
        undefined,
        unix,
      );
    if (config.ports.https >= 0)
      https = await HttpListeners.start(
        httpEdge(withRootPage(role.fetch, config)),
        config.addresses.https,
        config.ports.https,
        tls,
        unix,
      );
    dns = await startDns(config, role.dns, log);
    // As Consul: written once start-up has succeeded, so its presence means the agent serves.
    if (config.pidFile) steps.push(writePidFile(config.pidFile));
    role.announce([
      ...(http?.addresses() ?? []),
      ...(https?.addresses().map((a) => (a.startsWith("unix://") ? a : `https://${a}`)) ?? []),
    ]);
    const outcome = await Promise.race([signals.received, left, role.fatal ?? new Promise<never>(() => {})]);
    if (outcome instanceof Error) code = 1;
    else if (outcome === "left") log.info("left the cluster (/v1/agent/leave), shutting down");
    else {
      signal = outcome;
      log.info({ signal }, "caught signal, shutting down");
    }
  } catch (err) {
    log.error({ err: (err as Error).message }, "agent failed to start");
    code = 1;
  } finally {
    await http?.close();
    await https?.close();
    await dns?.close();
    for (const step of steps.reverse()) {
      try {
        await step(signal);
      } catch (err) {
        log.error({ err: (err as Error).message }, "a shutdown step failed");
      }
    }
    signals.dispose();
    log.info("agent stopped");
    log.flush?.();
  }
  return code;
}
