// Several datacenters on loopback, WAN-joined: each of `servers` servers (-bootstrap-expect) and, unless
// left out, one client agent, every agent on its own free ports with its own data dir and log file
// (<root>/<name>.log). Servers are named <dc>-s1.., client agents <dc>-c1.

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type AgentPorts, type AgentProcess, clientFlags, serverFlags, spawnAgent } from "./agent.js";
import { http } from "./http.js";
import { awaitLeader } from "./leader.js";
import { stablePorts } from "./ports.js";
import { stop } from "./processes.js";
import { waitFor } from "./wait.js";

export interface FederationOptions {
  /** Datacenter names (default dc1, dc2). */
  readonly datacenters?: readonly string[];
  /** Servers per datacenter (default 3). */
  readonly servers?: number;
  /** One client agent per datacenter, joined to its servers (default true). */
  readonly clients?: boolean;
  /** Extra flags of every agent of a datacenter (servers and client), after the harness's own. */
  readonly flags?: (dc: string, role: "server" | "client") => readonly string[];
  /** How long to wait for leaders, the WAN pool and the clients (default 120 s). */
  readonly timeoutMs?: number;
  /** The ACL token the readiness checks read the catalog with (with ACLs on in `flags`). */
  readonly token?: string;
}

export interface FederatedDatacenter {
  readonly name: string;
  /** Its servers, in start order (a test that restarts one puts the new process in its place). */
  readonly servers: AgentProcess[];
  readonly client: AgentProcess | undefined;
  /** WAN gossip ports of its servers, by server name (for -join-wan and partitions). */
  readonly wanPorts: ReadonlyMap<string, number>;
}

export interface Federation {
  readonly datacenters: readonly FederatedDatacenter[];
  readonly root: string;
  dc(name: string): FederatedDatacenter;
  /** Every agent process, servers and clients. */
  agents(): AgentProcess[];
  stop(): Promise<void>;
}

/**
 * Starts the datacenters, the first one first, the servers of the others joining the WAN pool through its
 * servers (-retry-join-wan), and returns once each datacenter has a leader, every server lists every
 * datacenter in /v1/catalog/datacenters and each client agent's node is in its datacenter's catalog.
 */
export async function startFederation(root: string, options: FederationOptions = {}): Promise<Federation> {
  const names = options.datacenters ?? ["dc1", "dc2"];
  const timeoutMs = options.timeoutMs ?? 120_000;
  const datacenters: FederatedDatacenter[] = [];
  const stopAll = async () => {
    await Promise.all(
      datacenters.flatMap((d) => [...d.servers, ...(d.client ? [d.client] : [])]).map((a) => stop(a.process)),
    );
  };
  try {
    // The first datacenter comes up first, so the others' WAN joins find it at their first attempt; its
    // ports, like every datacenter's, are taken just before its agents bind them.
    const [first, ...rest] = names;
    const primary = await startDatacenter(root, first!, [], options);
    datacenters.push(primary);
    await awaitLeader(primary.servers, timeoutMs);
    // Only through the first server: the first datacenter's other servers enter the WAN pool by flood join
    // (as in Consul), which every federation test so relies on.
    const wanJoin = [...primary.wanPorts.values()].slice(0, 1).map((port) => `127.0.0.1:${port}`);
    for (const dc of rest) datacenters.push(await startDatacenter(root, dc, wanJoin, options));
    await awaitFederation(datacenters, timeoutMs, options.token);
  } catch (err) {
    await stopAll();
    throw err;
  }
  return {
    datacenters,
    root,
    dc: (name) => {
      const found = datacenters.find((d) => d.name === name);
      if (!found) throw new Error(`no datacenter ${name} in this federation`);
      return found;
    },
    agents: () => datacenters.flatMap((d) => [...d.servers, ...(d.client ? [d.client] : [])]),
    stop: stopAll,
  };
}

/** Spawns one datacenter's servers (and client agent), its servers joining the WAN through `wanJoin`. */
async function startDatacenter(
  root: string,
  dc: string,
  wanJoin: readonly string[],
  options: FederationOptions,
): Promise<FederatedDatacenter> {
  const size = options.servers ?? 3;
  const withClient = options.clients ?? true;
  const ports = await stablePorts(size * 4 + (withClient ? 3 : 0));
  const portsOf = (i: number): Required<AgentPorts> => ({
    http: ports[i * 4]!,
    server: ports[i * 4 + 1]!,
    serfLan: ports[i * 4 + 2]!,
    serfWan: ports[i * 4 + 3]!,
  });
  // Joins, LAN and WAN, are retried every second, not every 30 s.
  const fast = ["-retry-interval", "1s", "-retry-interval-wan", "1s"];
  const servers: AgentProcess[] = [];
  const wanPorts = new Map<string, number>();
  for (let i = 0; i < size; i++) {
    const name = `${dc}-s${i + 1}`;
    const dataDir = join(root, name);
    await mkdir(dataDir, { recursive: true });
    const lanJoin = Array.from({ length: size }, (_, j) => j)
      .filter((j) => j !== i)
      .map((j) => `127.0.0.1:${portsOf(j).serfLan}`);
    servers.push(
      spawnAgent({
        name,
        ports: portsOf(i),
        flags: [
          ...serverFlags({ name, dataDir, join: lanJoin, bootstrapExpect: size, logLevel: "warn" }),
          ...["-datacenter", dc, ...fast],
          ...wanJoin.flatMap((target) => ["-retry-join-wan", target]),
          ...(options.flags?.(dc, "server") ?? []),
        ],
        logFile: join(root, `${name}.log`),
      }),
    );
    wanPorts.set(name, portsOf(i).serfWan);
  }
  let client: AgentProcess | undefined;
  if (withClient) {
    const name = `${dc}-c1`;
    const dataDir = join(root, name);
    await mkdir(dataDir, { recursive: true });
    const base = size * 4;
    client = spawnAgent({
      name,
      ports: { http: ports[base]!, server: ports[base + 1]!, serfLan: ports[base + 2]! },
      flags: [
        ...clientFlags({ name, dataDir, join: [`127.0.0.1:${portsOf(0).serfLan}`] }),
        ...["-datacenter", dc, "-log-level", "warn", ...fast],
        ...(options.flags?.(dc, "client") ?? []),
      ],
      logFile: join(root, `${name}.log`),
    });
  }
  return { name: dc, servers, client, wanPorts };
}

/** Leaders, a complete WAN view on every server, and each client agent's node registered. */
export async function awaitFederation(
  datacenters: readonly FederatedDatacenter[],
  timeoutMs = 120_000,
  token?: string,
): Promise<void> {
  const headers: Record<string, string> = token ? { "x-consul-token": token } : {};
  const deadline = performance.now() + timeoutMs;
  const left = () => Math.max(1000, deadline - performance.now());
  await Promise.all(datacenters.map((d) => awaitLeader(d.servers, left())));
  const expected = datacenters.map((d) => d.name).sort();
  await waitFor(
    "every server to see every datacenter over the WAN",
    async () => {
      for (const d of datacenters) {
        for (const s of d.servers) {
          const res = await http(`${s.url}/v1/catalog/datacenters`, "GET", undefined, {
            timeoutMs: 5000,
            headers,
          });
          const seen = (JSON.parse(res.text) as string[]).slice().sort();
          if (JSON.stringify(seen) !== JSON.stringify(expected)) return undefined;
        }
      }
      return true;
    },
    left(),
    250,
  );
  // One server of a datacenter is enough for the list above, but a server forwards only to the remote
  // servers its own WAN gossip knows: tests that kill or pick remote servers need every one known everywhere.
  const everyServer = datacenters.flatMap((d) => d.servers.map((s) => `${s.name}.${d.name}`)).sort();
  await waitFor(
    "every server to see every server alive over the WAN",
    async () => {
      for (const d of datacenters) {
        for (const s of d.servers) {
          const res = await http(`${s.url}/v1/agent/members?wan=1`, "GET", undefined, {
            timeoutMs: 5000,
            headers,
          });
          const members = JSON.parse(res.text) as { Name: string; Status: number }[];
          const alive = members.filter((m) => m.Status === 1).map((m) => m.Name);
          if (everyServer.some((name) => !alive.includes(name))) return undefined;
        }
      }
      return true;
    },
    left(),
    250,
  );
  await Promise.all(
    datacenters.map(async (d) => {
      const client = d.client;
      if (!client) return;
      await waitFor(
        `client agent ${client.name} in the catalog of ${d.name}`,
        async () => {
          const res = await http(`${client.url}/v1/catalog/node/${client.name}`, "GET", undefined, {
            timeoutMs: 5000,
            headers,
          });
          return res.status === 200 && res.text !== "null" ? true : undefined;
        },
        left(),
        250,
      );
    }),
  );
}
