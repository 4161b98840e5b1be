// A cluster of real `cairn agent -server` processes and, next to them, client agents (`cairn agent` without
// -server, each joining the LAN pool through one server), each with its own data directory, on a Network:
// the servers take its first addresses, the clients the rest. Every agent has an index, its address on the
// Network; the harness can kill, pause, resume and restart any of them, and every process it starts is
// stopped by PID when the cluster stops (and by the process registry's exit hook if the harness dies first).

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type AgentProcess, clientFlags, serverFlags, spawnAgent } from "../../../scripts/lib/agent.js";
import { http } from "../../../scripts/lib/http.js";
import { leaderAddress } from "../../../scripts/lib/leader.js";
import { isRunning, kill, pause, resume, stop } from "../../../scripts/lib/processes.js";
import { type TestCertFiles, tlsHcl } from "../../../scripts/lib/tls-certs.js";
import { waitFor } from "../../../scripts/lib/wait.js";
import type { Network } from "./network.js";

export interface ClusterOptions {
  readonly network: Network;
  /** How many of the network's addresses (the last ones) are client agents; default 0. */
  readonly clients?: number;
  /** Data directories live here, one per agent. */
  readonly dataRoot: string;
  /** Agent logs are appended here, one file per agent. */
  readonly logRoot: string;
  /** Consul's raft_multiplier (default: the agent's default, 1). */
  readonly raftMultiplier?: number;
  /** The source tree to run `cairn agent` from (default: this checkout). */
  readonly treeRoot?: string;
  /** Mutual TLS on the server RPC port (verify_incoming, verify_outgoing, verify_server_hostname). */
  readonly tls?: TestCertFiles;
  /** Called when an agent exits without the harness having stopped it (a crash, or a failed start). */
  readonly onCrash?: (node: AgentNode, exit: number | string, outputTail: string) => void;
}

export interface AgentNode {
  /** Its address on the Network (servers first, then clients). */
  readonly index: number;
  readonly name: string;
  /** Base URL of its HTTP API. */
  readonly url: string;
  readonly dataDir: string;
}

export interface ServerNode extends AgentNode {
  /** Its Raft address as /v1/status/leader reports it. */
  readonly rpcAddress: string;
}

export interface ClientNode extends AgentNode {
  /** The server it joins the LAN pool through. */
  readonly joins: number;
}

export class Cluster {
  /** The servers; `nodes[i].index === i`. */
  readonly nodes: readonly ServerNode[];
  readonly clients: readonly ClientNode[];
  /** Base URLs of every agent's HTTP API, servers then clients: where workloads send their requests. */
  readonly endpoints: readonly string[];
  private readonly agents: (AgentProcess | undefined)[];
  private readonly paused = new Set<number>();
  private readonly extraArgs: string[][];
  /** Processes the harness itself signalled to stop; any other exit is a crash. */
  private readonly stopping = new WeakSet<AgentProcess>();

  constructor(private readonly options: ClusterOptions) {
    const { network, dataRoot } = options;
    const clients = options.clients ?? 0;
    const servers = network.addresses.length - clients;
    if (!Number.isInteger(clients) || clients < 0 || servers < 1) {
      throw new Error(`${network.addresses.length} addresses cannot hold ${clients} clients and a server`);
    }
    const url = (i: number) => `http://${network.addresses[i]!.host}:${network.addresses[i]!.httpPort}`;
    this.nodes = network.addresses.slice(0, servers).map((a, i) => ({
      index: i,
      name: `s${i + 1}`,
      url: url(i),
      rpcAddress: `${a.host}:${a.serverPort}`,
      dataDir: join(dataRoot, `s${i + 1}`),
    }));
    this.clients = Array.from({ length: clients }, (_, c) => ({
      index: servers + c,
      name: `c${c + 1}`,
      url: url(servers + c),
      dataDir: join(dataRoot, `c${c + 1}`),
      joins: c % servers,
    }));
    this.endpoints = [...this.nodes, ...this.clients].map((n) => n.url);
    this.agents = network.addresses.map(() => undefined);
    this.extraArgs = network.addresses.map(() => []);
  }

  /** The agent at network index `i`, server or client. */
  agent(i: number): AgentNode {
    const node = i < this.size ? this.nodes[i] : this.clients[i - this.size];
    if (node === undefined) throw new Error(`no agent at index ${i}`);
    return node;
  }

  /** The number of servers. */
  get size(): number {
    return this.nodes.length;
  }

  get network(): Network {
    return this.options.network;
  }

  /**
   * Starts every server (they bootstrap through -bootstrap-expect and find each other by -retry-join) and
   * every client (each retry-joins its server until that one answers).
   */
  async start(): Promise<void> {
    await mkdir(this.options.logRoot, { recursive: true });
    for (const node of [...this.nodes, ...this.clients]) {
      await mkdir(node.dataDir, { recursive: true });
      this.spawn(node.index);
    }
  }

  private flags(i: number): string[] {
    const { tls } = this.options;
    const tlsFlags = tls ? ["-hcl", tlsHcl(tls.ca, i < this.size ? tls.server : tls.client)] : [];
    return [...this.roleFlags(i), ...tlsFlags];
  }

  private roleFlags(i: number): string[] {
    const { addresses } = this.options.network;
    const serf = (j: number) => `${addresses[j]!.host}:${addresses[j]!.serfPort}`;
    const host = addresses[i]!.host;
    if (i < this.size) {
      return serverFlags({
        name: this.nodes[i]!.name,
        dataDir: this.nodes[i]!.dataDir,
        host,
        join: this.nodes.flatMap((n) => (n.index === i ? [] : [serf(n.index)])),
        bootstrapExpect: this.size,
        ...(this.options.raftMultiplier === undefined ? {} : { raftMultiplier: this.options.raftMultiplier }),
        logLevel: "info",
      });
    }
    const client = this.clients[i - this.size]!;
    // A client may start before its server listens: retry every second, not Consul's 30 s.
    return [
      ...clientFlags({ name: client.name, dataDir: client.dataDir, host, join: [serf(client.joins)] }),
      ...["-retry-interval", "1s", "-log-level", "info"],
    ];
  }

  private spawn(i: number): void {
    const node = this.agent(i);
    const me = this.options.network.addresses[i]!;
    const agent = spawnAgent({
      name: node.name,
      host: me.host,
      ports: { http: me.httpPort, server: me.serverPort, serfLan: me.serfPort },
      flags: [...this.flags(i), ...this.extraArgs[i]!],
      wrap: this.options.network.wrap(i),
      cwd: this.options.treeRoot,
      logFile: join(this.options.logRoot, `${node.name}.log`),
    });
    this.agents[i] = agent;
    void agent.process.exited.then((exit) => {
      if (!this.stopping.has(agent)) this.options.onCrash?.(node, exit, agent.process.tail());
    });
  }

  isRunning(i: number): boolean {
    const a = this.agents[i];
    return a !== undefined && isRunning(a.process);
  }

  isPaused(i: number): boolean {
    return this.paused.has(i);
  }

  /** Running and not paused. */
  isServing(i: number): boolean {
    return this.isRunning(i) && !this.paused.has(i);
  }

  pid(i: number): number | undefined {
    return this.isRunning(i) ? this.agents[i]!.process.pid : undefined;
  }

  async kill(i: number): Promise<void> {
    const a = this.agents[i];
    if (!a || !this.isRunning(i)) return;
    this.stopping.add(a);
    this.paused.delete(i);
    await kill(a.process);
  }

  /** SIGTERM (a clean shutdown), SIGKILL if it does not exit within a few seconds. */
  async terminate(i: number): Promise<void> {
    const a = this.agents[i];
    if (!a) return;
    this.stopping.add(a);
    this.paused.delete(i);
    await stop(a.process, 5000);
  }

  pause(i: number): void {
    const a = this.agents[i];
    if (!a || !this.isRunning(i)) return;
    pause(a.process);
    this.paused.add(i);
  }

  resume(i: number): void {
    const a = this.agents[i];
    if (!a || !this.paused.has(i)) return;
    this.paused.delete(i);
    resume(a.process);
  }

  /** Starts agent `i` again on its kept data directory; `extraArgs` replace the previous extra flags. */
  restart(i: number, extraArgs: string[] = []): void {
    if (this.isRunning(i)) throw new Error(`${this.agent(i).name} is still running`);
    this.extraArgs[i] = extraArgs;
    this.spawn(i);
  }

  /** Starts every agent that is down and resumes every paused one. */
  reviveAll(): void {
    for (const node of [...this.nodes, ...this.clients]) {
      this.resume(node.index);
      if (!this.isRunning(node.index)) this.restart(node.index, this.extraArgs[node.index]);
    }
  }

  /** Stops every agent by PID (paused ones are resumed first so that they can take the signal). */
  async stop(): Promise<void> {
    this.paused.clear();
    await Promise.all(
      this.agents.map(async (a) => {
        if (!a) return;
        this.stopping.add(a);
        await stop(a.process, 2000);
      }),
    );
  }

  /**
   * The leader a majority of the serving servers name, if any. A partitioned minority may still name an old
   * leader; it is outvoted.
   */
  async leader(timeoutMs = 1000): Promise<number | undefined> {
    const answers = await Promise.all(
      this.nodes.map(async (n) => {
        return this.isServing(n.index) ? leaderAddress(n.url, timeoutMs) : "";
      }),
    );
    const votes = new Map<string, number>();
    for (const a of answers) if (a) votes.set(a, (votes.get(a) ?? 0) + 1);
    for (const [address, count] of votes) {
      if (count > this.size / 2) {
        const node = this.nodes.find((n) => n.rpcAddress === address);
        if (node && this.isServing(node.index)) return node.index;
      }
    }
    return undefined;
  }

  /**
   * Every agent running, unpaused, and naming the same leader (a client asks a server through its tunnel),
   * and every server a voter (autopilot may have removed one that looked dead and re-added it as a non-voter
   * not yet promoted): the state to wait for before the next fault, so that each fault strikes a whole
   * cluster and its recovery time means one thing.
   */
  async healthy(): Promise<boolean> {
    const all = [...this.nodes, ...this.clients];
    if (!all.every((n) => this.isServing(n.index))) return false;
    const leader = await this.leader();
    if (leader === undefined) return false;
    const expected = this.nodes[leader]!.rpcAddress;
    const answers = await Promise.all(all.map((n) => leaderAddress(n.url, 1000)));
    if (!answers.every((a) => a === expected)) return false;
    const voters = await voterAddresses(this.nodes[leader]!.url);
    return this.nodes.every((n) => voters.has(n.rpcAddress));
  }

  async awaitHealthy(timeoutMs: number): Promise<boolean> {
    return waitFor("a whole cluster", async () => ((await this.healthy()) ? true : undefined), timeoutMs, 200)
      .then(() => true)
      .catch(() => false);
  }

  async awaitLeader(timeoutMs = 60_000): Promise<number> {
    return waitFor("a leader", () => this.leader(), timeoutMs, 200);
  }
}

/** The server addresses `url`'s Raft configuration lists as voters; empty when it does not answer. */
async function voterAddresses(url: string): Promise<Set<string>> {
  try {
    const res = await http(`${url}/v1/operator/raft/configuration`, "GET", undefined, { timeoutMs: 1000 });
    const body: unknown = res.status === 200 ? JSON.parse(res.text) : undefined;
    const servers = typeof body === "object" && body !== null ? (body as { Servers?: unknown }).Servers : [];
    if (!Array.isArray(servers)) return new Set();
    return new Set(
      servers.flatMap((s: unknown) => {
        const { Address, Voter } = (typeof s === "object" && s !== null ? s : {}) as Record<string, unknown>;
        return Voter === true && typeof Address === "string" ? [Address] : [];
      }),
    );
  } catch {
    return new Set();
  }
}
