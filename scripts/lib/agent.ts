// `cairn agent` processes run from a source tree: the command line (with an optional wrapper such as
// `ip netns exec NS`), the usual server flags, and spawning one with its addresses known.

import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AGENT_NODE_FLAGS } from "@cairn/cli/node-flags";
import { type Spawned, spawnTracked } from "./processes.js";

/** This checkout. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface AgentPorts {
  readonly http: number;
  readonly server: number;
  /** Absent for a -dev agent, which needs no LAN port. */
  readonly serfLan?: number;
  /** WAN gossip port of a server; absent: any free one (0), so that servers on one host do not collide. */
  readonly serfWan?: number;
}

export interface AgentArgvOptions {
  /** Without them, the flags must name the ports. */
  readonly ports?: AgentPorts;
  /** Further agent flags, after the ports (a later flag wins). */
  readonly flags?: readonly string[];
  /** Node's own flags (for example --cpu-prof). */
  readonly nodeArgs?: readonly string[];
  /** A command the node process runs under, for example ["ip", "netns", "exec", "ns1"]. */
  readonly wrap?: readonly string[];
  /** The source tree to run from (default: this checkout). */
  readonly cwd?: string;
  /**
   * The process's working directory, when not the source tree (as a harness starts `consul -dev` in a
   * scratch folder): the entry point and tsx are then named by absolute path.
   */
  readonly workDir?: string;
  /**
   * Run the compiled `packages/<name>/dist` with plain node, as the image and the systemd unit do, instead of
   * the sources through tsx. Default: `CAIRN_AGENT_BUILT=1` in the environment, which the benchmarks set
   * once they have compiled the tree (`scripts/bench/lib/built.ts`); tests run the sources.
   */
  readonly built?: boolean;
}

export interface AgentCommand {
  readonly command: string;
  readonly args: string[];
  readonly cwd: string;
}

/**
 * `node <AGENT_NODE_FLAGS> --conditions=source --import tsx packages/cli/src/main.ts agent <ports> <flags>`,
 * or `node <AGENT_NODE_FLAGS> packages/cli/dist/main.js agent ...` when `built`; maybe wrapped.
 */
export function agentArgv(options: AgentArgvOptions): AgentCommand {
  const { ports } = options;
  const portFlags = ports
    ? [
        "-http-port",
        String(ports.http),
        "-server-port",
        String(ports.server),
        // Agents of a test share one host: DNS stays off unless a test asks for it (a later -dns-port wins).
        "-dns-port",
        "-1",
        ...(ports.serfLan === undefined
          ? []
          : ["-serf-lan-port", String(ports.serfLan), "-serf-wan-port", String(ports.serfWan ?? 0)]),
      ]
    : [];
  const tree = options.cwd ?? REPO_ROOT;
  const elsewhere = options.workDir !== undefined;
  const built = options.built ?? process.env.CAIRN_AGENT_BUILT === "1";
  const entry = built
    ? [join(tree, "packages/cli/dist/main.js")]
    : [
        "--conditions=source",
        "--import",
        elsewhere ? pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href : "tsx",
        elsewhere ? join(tree, "packages/cli/src/main.ts") : "packages/cli/src/main.ts",
      ];
  const node = [
    process.execPath,
    // As the product's own launchers run it: benchmarks measure the agent as deployed.
    ...AGENT_NODE_FLAGS,
    ...(options.nodeArgs ?? []),
    ...entry,
    "agent",
    ...portFlags,
    ...(options.flags ?? []),
  ];
  const [command, ...args] = [...(options.wrap ?? []), ...node];
  return { command: command!, args, cwd: options.workDir ?? tree };
}

export interface ServerFlagsOptions {
  readonly name: string;
  readonly dataDir: string;
  /** Bind, client and advertised address (default 127.0.0.1). */
  readonly host?: string;
  /** host:serf-port of the servers to -retry-join. */
  readonly join?: readonly string[];
  readonly bootstrapExpect?: number;
  /** Consul's raft_multiplier: 1 gives an election timeout of about a second. */
  readonly raftMultiplier?: number;
  readonly logLevel?: string;
}

/** The flags of one member of a server cluster (ports come from `agentArgv`). */
export function serverFlags(options: ServerFlagsOptions): string[] {
  return [
    "-server",
    ...identityFlags(options),
    ...(options.bootstrapExpect === undefined ? [] : ["-bootstrap-expect", String(options.bootstrapExpect)]),
    ...(options.raftMultiplier === undefined
      ? []
      : ["-hcl", `performance { raft_multiplier = ${options.raftMultiplier} }`]),
    ...(options.logLevel === undefined ? [] : ["-log-level", options.logLevel]),
    ...(options.join ?? []).flatMap((target) => ["-retry-join", target]),
  ];
}

export type ClientFlagsOptions = Pick<ServerFlagsOptions, "name" | "dataDir" | "host" | "join">;

/** The flags of a client agent (no -server) joining the LAN pool through `join`. */
export function clientFlags(options: ClientFlagsOptions): string[] {
  return [...identityFlags(options), ...(options.join ?? []).flatMap((target) => ["-retry-join", target])];
}

/** Node name, data directory, and one address to bind, serve HTTP on and advertise (default 127.0.0.1). */
function identityFlags(options: Pick<ServerFlagsOptions, "name" | "dataDir" | "host">): string[] {
  const host = options.host ?? "127.0.0.1";
  return ["-node", options.name, "-data-dir", options.dataDir, "-bind", host, "-client", host];
}

export interface AgentOptions extends AgentArgvOptions {
  readonly name: string;
  readonly ports: AgentPorts;
  /** Where its HTTP API and server RPC are reached (default 127.0.0.1). */
  readonly host?: string;
  readonly logFile?: string;
}

export interface AgentProcess {
  readonly name: string;
  /** What it was started with: `spawnAgent(a.options)` starts it again. */
  readonly options: AgentOptions;
  readonly http: { readonly host: string; readonly port: number };
  /** Base URL of its HTTP API. */
  readonly url: string;
  /** host:port of its server RPC listener, as /v1/status/leader names it. */
  readonly rpcAddress: string;
  readonly process: Spawned;
}

/**
 * How long a spawned agent may take to serve HTTP. A cold `node --import tsx` start loads and compiles the
 * sources: about a second on an idle machine, but once over 20 s with both cores busy and a second suite
 * running (a fresh-clone series run failed on a 20 s start wait).
 */
export const AGENT_START_MS = 60_000;

/**
 * Waits until `agent` answers HTTP at all (any status: a leader, ACLs and the rest are the test's own
 * conditions, timed from here), giving up at once if the process exited.
 */
export async function awaitHttp(agent: AgentProcess, timeoutMs = AGENT_START_MS): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let exited: number | string | undefined;
  void agent.process.exited.then((code) => {
    exited = code;
  });
  let lastError = "";
  for (;;) {
    if (exited !== undefined)
      throw new Error(`${agent.name} exited (${exited}) before serving HTTP:\n${agent.process.tail()}`);
    const answered = await fetch(`${agent.url}/v1/status/leader`, {
      signal: AbortSignal.timeout(5_000),
    }).then(
      async (r) => {
        await r.arrayBuffer();
        return true;
      },
      (err: Error) => {
        lastError = err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message;
        return false;
      },
    );
    if (answered) return;
    if (performance.now() >= deadline)
      throw new Error(
        `${agent.name} did not serve HTTP within ${timeoutMs} ms (last: ${lastError}):\n${agent.process.tail()}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function spawnAgent(options: AgentOptions): AgentProcess {
  const host = options.host ?? "127.0.0.1";
  const { command, args, cwd } = agentArgv(options);
  const spawnOptions = options.logFile === undefined ? { cwd } : { cwd, logFile: options.logFile };
  return {
    name: options.name,
    options,
    http: { host, port: options.ports.http },
    url: `http://${host}:${options.ports.http}`,
    rpcAddress: `${host}:${options.ports.server}`,
    process: spawnTracked(options.name, command, args, spawnOptions),
  };
}
