// Real `cairn agent` processes on loopback: one -dev agent, or a cluster of servers that bootstrap through
// -bootstrap-expect and -retry-join, each with its own data dir (Raft's log is fsynced).

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type HttpTarget, httpRequest, keepAliveAgent } from "./http-client.js";
import { freePort, freePorts, GiveUp, type Spawned, spawnTracked, stop, waitFor } from "./processes.js";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface CairnServer {
  name: string;
  http: HttpTarget;
  /** host:port of the server RPC listener, as /v1/status/leader names it. */
  rpcAddress: string;
  process: Spawned;
}

export interface CairnCluster {
  servers: CairnServer[];
  leader: CairnServer;
  stop(): Promise<void>;
}

/** Spawns `cairn agent <args>` from the source tree (tsx, workspace packages resolved to their sources). */
export function spawnCairnAgent(
  name: string,
  args: string[],
  options: { logFile?: string; nodeArgs?: string[] } = {},
): Spawned {
  return spawnTracked(
    name,
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      "--conditions=source",
      "--import",
      "tsx",
      "packages/cli/src/main.ts",
      "agent",
      ...args,
    ],
    options.logFile ? { cwd: REPO_ROOT, logFile: options.logFile } : { cwd: REPO_ROOT },
  );
}

async function leaderOf(server: CairnServer): Promise<string> {
  const agent = keepAliveAgent(1);
  try {
    const res = await httpRequest(agent, server.http, "GET", "/v1/status/leader");
    if (res.status !== 200) return "";
    const leader: unknown = JSON.parse(res.body.toString());
    return typeof leader === "string" ? leader : "";
  } finally {
    agent.destroy();
  }
}

function assertRunning(server: CairnServer): void {
  if (server.process.child.exitCode !== null || server.process.child.signalCode !== null) {
    throw new GiveUp(`${server.name} exited: ${server.process.tail()}`);
  }
}

/** Waits until every server names the same leader, and returns that server. */
export async function awaitLeader(servers: CairnServer[], timeoutMs = 60_000): Promise<CairnServer> {
  return waitFor(
    "the Cairn servers to agree on a leader",
    async () => {
      const leaders: string[] = [];
      for (const s of servers) {
        assertRunning(s);
        leaders.push(await leaderOf(s));
      }
      const first = leaders[0];
      if (!first || !leaders.every((l) => l === first)) return undefined;
      return servers.find((s) => s.rpcAddress === first);
    },
    timeoutMs,
    200,
  );
}

/** A `cairn agent -dev` server on a free HTTP port. */
export async function startCairnDev(nodeName = "dev"): Promise<CairnServer & { stop(): Promise<void> }> {
  const port = await freePort();
  const proc = spawnCairnAgent(nodeName, ["-dev", "-node", nodeName, "-http-port", String(port)]);
  const server: CairnServer = {
    name: nodeName,
    http: { host: "127.0.0.1", port },
    rpcAddress: "",
    process: proc,
  };
  try {
    await waitFor("the dev agent to elect itself", async () => {
      assertRunning(server);
      return (await leaderOf(server)) || undefined;
    });
  } catch (err) {
    await stop(proc, 1000);
    throw err;
  }
  return { ...server, stop: () => stop(proc) };
}

/**
 * `size` servers with -bootstrap-expect size, each joining the others' LAN ports. `nodeArgs` go to each
 * server's node (for example --cpu-prof), `agentArgs` after the agent's own (a later flag wins).
 */
export async function startCairnCluster(
  size: number,
  dataRoot: string,
  options: { nodeArgs?: string[]; agentArgs?: string[] } = {},
): Promise<CairnCluster> {
  const ports = await freePorts(size * 3);
  const serfPort = (i: number) => ports[size * 2 + i]!;
  const servers: CairnServer[] = [];
  for (let i = 0; i < size; i++) {
    const name = `cairn${i + 1}`;
    const dataDir = join(dataRoot, name);
    await mkdir(dataDir, { recursive: true });
    const joins = Array.from({ length: size }, (_, j) => j)
      .filter((j) => j !== i)
      .flatMap((j) => ["-retry-join", `127.0.0.1:${serfPort(j)}`]);
    const proc = spawnCairnAgent(
      name,
      [
        "-server",
        "-bootstrap-expect",
        String(size),
        "-data-dir",
        dataDir,
        "-node",
        name,
        "-bind",
        "127.0.0.1",
        "-http-port",
        String(ports[i]),
        "-server-port",
        String(ports[size + i]),
        "-serf-lan-port",
        String(serfPort(i)),
        "-log-level",
        "warn",
        ...joins,
        ...(options.agentArgs ?? []),
      ],
      { logFile: join(dataRoot, `${name}.log`), nodeArgs: options.nodeArgs ?? [] },
    );
    servers.push({
      name,
      http: { host: "127.0.0.1", port: ports[i]! },
      rpcAddress: `127.0.0.1:${ports[size + i]}`,
      process: proc,
    });
  }
  const stopAllServers = async () => {
    await Promise.all(servers.map((s) => stop(s.process)));
  };
  try {
    const leader = await awaitLeader(servers);
    return { servers, leader, stop: stopAllServers };
  } catch (err) {
    await stopAllServers();
    throw err;
  }
}
