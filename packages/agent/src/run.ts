import { rmSync } from "node:fs";
import { runAgentProcess } from "./agent-process.js";
import { type AgentConfig, ConfigError, loadAgentConfig } from "./config/index.js";
import { makeDevDir } from "./dev-dir.js";
import { startClientRole } from "./roles/client-role.js";
import { startServerRole } from "./roles/server-role.js";
import { AgentTls } from "./tls/agent-tls.js";

/**
 * `cairn agent ...`: loads the configuration and runs a server or a client agent until SIGINT, SIGTERM or a
 * graceful leave, then shuts down in order. Resolves with the exit code.
 */
export async function runAgent(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let config: AgentConfig;
  let warnings: readonly string[];
  let tls: AgentTls;
  try {
    ({ config, warnings } = loadAgentConfig(argv, env));
    tls = new AgentTls(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`==> ${err.message}\n`);
    return 1;
  }
  // A reload re-reads the certificates too: new connections use them, open ones keep theirs.
  const reread = () => {
    const next = loadAgentConfig(argv, env).config;
    tls.reload(next.tls);
    return next;
  };
  if (!config.server) {
    const dataDir = config.dataDir;
    if (dataDir === undefined) return refuse("data_dir is required (-data-dir)");
    return runAgentProcess(config, tls, warnings, (ctx) => startClientRole(ctx, { dataDir, reread }));
  }
  if (!config.dev && config.dataDir === undefined)
    return refuse("data_dir is required in server mode (-data-dir)");
  // Dev mode keeps nothing: Raft runs in a temporary directory removed at exit (or by the next dev agent).
  const devDir = config.dev ? makeDevDir() : undefined;
  const dataDir = devDir ?? config.dataDir ?? "";
  try {
    return await runAgentProcess(config, tls, warnings, (ctx) =>
      startServerRole(ctx, { dataDir, ephemeral: devDir !== undefined, reread }),
    );
  } finally {
    if (devDir) rmSync(devDir, { recursive: true, force: true });
  }
}

function refuse(reason: string): number {
  process.stderr.write(`==> ${reason}\n`);
  return 1;
}
