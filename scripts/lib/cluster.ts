// Ready-made agents on loopback: one -dev agent, or a cluster of servers that bootstrap through
// -bootstrap-expect and -retry-join, each with its own data dir (Raft's log is fsynced).

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type AgentProcess, serverFlags, spawnAgent } from "./agent.js";
import { http as httpRequest } from "./http.js";
import { awaitLeader } from "./leader.js";
import { freePorts } from "./ports.js";
import { stop } from "./processes.js";
import { waitFor } from "./wait.js";

export interface RunningAgent extends AgentProcess {
  stop(): Promise<void>;
}

/**
 * A `cairn agent -dev` server on free ports, once it has elected itself and registered its own node (which
 * sessions need; the registration follows the election, it is not part of it).
 */
export async function startCairnDev(
  nodeName = "dev",
  options: { nodeArgs?: readonly string[] } = {},
): Promise<RunningAgent> {
  const [http, server] = (await freePorts(2)) as [number, number];
  const agent = spawnAgent({
    name: nodeName,
    ports: { http, server },
    flags: ["-dev", "-node", nodeName],
    ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
  });
  try {
    await awaitLeader([agent]);
    await waitFor("the dev agent's own node in the catalog", async () => {
      const res = await httpRequest(`${agent.url}/v1/catalog/node/${nodeName}`);
      return res.status === 200 && res.text !== "null" ? true : undefined;
    });
  } catch (err) {
    await stop(agent.process, 1000);
    throw err;
  }
  return { ...agent, stop: () => stop(agent.process) };
}

export interface ServerCluster {
  readonly servers: readonly AgentProcess[];
  readonly leader: AgentProcess;
  stop(): Promise<void>;
}

/**
 * `size` servers with -bootstrap-expect size, each joining the others' LAN ports, logs next to their data
 * dirs under `dataRoot`. `nodeArgs` go to each server's node (for example --cpu-prof), `flags` after the
 * server flags (a later flag wins).
 */
export async function startCairnCluster(
  size: number,
  dataRoot: string,
  options: {
    nodeArgs?: readonly string[];
    flags?: readonly string[];
    /** Flags for server `index` alone (0-based), after `flags`: its own ports or certificate. */
    flagsFor?: (index: number) => readonly string[];
  } = {},
): Promise<ServerCluster> {
  const ports = await freePorts(size * 3);
  const portsOf = (i: number) => ({
    http: ports[i]!,
    server: ports[size + i]!,
    serfLan: ports[2 * size + i]!,
  });
  const servers: AgentProcess[] = [];
  for (let i = 0; i < size; i++) {
    const name = `cairn${i + 1}`;
    const dataDir = join(dataRoot, name);
    await mkdir(dataDir, { recursive: true });
    const join_ = Array.from({ length: size }, (_, j) => j)
      .filter((j) => j !== i)
      .map((j) => `127.0.0.1:${portsOf(j).serfLan}`);
    servers.push(
      spawnAgent({
        name,
        ports: portsOf(i),
        flags: [
          ...serverFlags({ name, dataDir, join: join_, bootstrapExpect: size, logLevel: "warn" }),
          ...(options.flags ?? []),
          ...(options.flagsFor?.(i) ?? []),
        ],
        nodeArgs: options.nodeArgs ?? [],
        logFile: join(dataRoot, `${name}.log`),
      }),
    );
  }
  // A CPU profile is written at exit, so a SIGKILL after the grace loses it; and a leader stopped together
  // with its followers waits out its hand-over attempt first, longer than the default grace.
  const profiling = options.nodeArgs?.some((a) => a.startsWith("--cpu-prof")) ?? false;
  const stopServers = async () => {
    await Promise.all(servers.map((s) => stop(s.process, profiling ? 30_000 : undefined)));
  };
  try {
    return { servers, leader: await awaitLeader(servers), stop: stopServers };
  } catch (err) {
    await stopServers();
    throw err;
  }
}
