// A federation for the chaos harness: `datacenters` datacenters of `servers` servers and one client agent
// each on a Network (namespaces: one address per agent, standard ports; loopback: the addresses' own
// ports), the servers of each datacenter WAN-joined to the first's. Readiness as scripts/lib/federation.ts
// (leaders, a complete WAN view, the client agents registered).

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type AgentProcess, clientFlags, serverFlags, spawnAgent } from "../../../scripts/lib/agent.js";
import { awaitFederation, type FederatedDatacenter } from "../../../scripts/lib/federation.js";
import { freePorts } from "../../../scripts/lib/ports.js";
import { stop } from "../../../scripts/lib/processes.js";
import type { Network } from "../cluster/network.js";

export interface WanClusterOptions {
  readonly network: Network;
  readonly datacenters: number;
  readonly servers: number;
  readonly dataRoot: string;
  readonly logRoot: string;
}

export interface WanCluster {
  readonly datacenters: readonly FederatedDatacenter[];
  /** Network node indexes of each datacenter's agents (servers, then its client agent). */
  readonly nodesByDc: readonly (readonly number[])[];
  /** Every agent of datacenter `d`: its servers and its client agent. */
  agentsOf(d: number): AgentProcess[];
  stop(): Promise<void>;
}

/** The number of network addresses a federation of this shape takes. */
export function wanClusterSize(datacenters: number, servers: number): number {
  return datacenters * (servers + 1);
}

export async function startWanCluster(o: WanClusterOptions): Promise<WanCluster> {
  const perDc = o.servers + 1;
  const address = (i: number) => o.network.addresses[i]!;
  // On loopback every agent shares one host: each server needs its own WAN port.
  const wanPorts =
    o.network.kind === "loopback"
      ? await freePorts(o.datacenters * o.servers)
      : Array(o.datacenters * o.servers).fill(8302);
  const wanOf = (d: number, s: number) => `${address(d * perDc + s).host}:${wanPorts[d * o.servers + s]}`;
  const datacenters: FederatedDatacenter[] = [];
  const all: AgentProcess[] = [];
  await mkdir(o.logRoot, { recursive: true });
  for (let d = 0; d < o.datacenters; d++) {
    const dc = `dc${d + 1}`;
    const serf = (s: number) => `${address(d * perDc + s).host}:${address(d * perDc + s).serfPort}`;
    const spawn = async (i: number, name: string, flags: (dataDir: string) => string[], serfWan?: number) => {
      const me = address(d * perDc + i);
      const dataDir = join(o.dataRoot, name);
      await mkdir(dataDir, { recursive: true });
      const agent = spawnAgent({
        name,
        host: me.host,
        ports: {
          http: me.httpPort,
          server: me.serverPort,
          serfLan: me.serfPort,
          ...(serfWan === undefined ? {} : { serfWan }),
        },
        flags: [...flags(dataDir), "-datacenter", dc, "-retry-interval", "1s", "-retry-interval-wan", "1s"],
        wrap: o.network.wrap(d * perDc + i),
        logFile: join(o.logRoot, `${name}.log`),
      });
      all.push(agent);
      return agent;
    };
    const servers: AgentProcess[] = [];
    const ports = new Map<string, number>();
    for (let s = 0; s < o.servers; s++) {
      const name = `${dc}-s${s + 1}`;
      const host = address(d * perDc + s).host;
      const wanJoin = d === 0 ? [] : Array.from({ length: o.servers }, (_, t) => wanOf(0, t));
      servers.push(
        await spawn(
          s,
          name,
          (dataDir) => [
            ...serverFlags({
              name,
              dataDir,
              host,
              join: Array.from({ length: o.servers }, (_, t) => t)
                .filter((t) => t !== s)
                .map(serf),
              bootstrapExpect: o.servers,
              raftMultiplier: 1,
              logLevel: "info",
            }),
            ...wanJoin.flatMap((target) => ["-retry-join-wan", target]),
          ],
          wanPorts[d * o.servers + s],
        ),
      );
      ports.set(name, wanPorts[d * o.servers + s]);
    }
    const clientName = `${dc}-c1`;
    const clientHost = address(d * perDc + o.servers).host;
    const client = await spawn(o.servers, clientName, (dataDir) => [
      ...clientFlags({ name: clientName, dataDir, host: clientHost, join: [serf(0)] }),
      "-log-level",
      "info",
    ]);
    datacenters.push({ name: dc, servers, client, wanPorts: ports });
  }
  const stopAll = async () => {
    await Promise.all(all.map((a) => stop(a.process, 2000)));
  };
  try {
    await awaitFederation(datacenters, 180_000);
  } catch (err) {
    await stopAll();
    throw err;
  }
  return {
    datacenters,
    nodesByDc: Array.from({ length: o.datacenters }, (_, d) =>
      Array.from({ length: perDc }, (_, i) => d * perDc + i),
    ),
    agentsOf: (d) => [...datacenters[d]!.servers, datacenters[d]!.client!],
    stop: stopAll,
  };
}
