// A cluster of real `cairn agent -server` processes, each with its own data directory, on a Network. The
// harness can kill, pause, resume and restart any of them; every process it starts is stopped by PID when
// the cluster stops (and by the process registry's exit hook if the harness dies first).

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type AgentProcess, serverFlags, spawnAgent } from "../../../scripts/lib/agent.js";
import { leaderAddress } from "../../../scripts/lib/leader.js";
import { isRunning, kill, pause, resume, stop } from "../../../scripts/lib/processes.js";
import { waitFor } from "../../../scripts/lib/wait.js";
import type { Network } from "./network.js";

export interface ClusterOptions {
  readonly network: Network;
  /** Data directories live here, one per server. */
  readonly dataRoot: string;
  /** Server logs are appended here, one file per server. */
  readonly logRoot: string;
  /** Consul's raft_multiplier: 1 gives an election timeout of about a second. */
  readonly raftMultiplier?: number;
  /** The source tree to run `cairn agent` from (default: this checkout). */
  readonly treeRoot?: string;
  /** Called when a server exits without the harness having stopped it (a crash, or a failed start). */
  readonly onCrash?: (node: ServerNode, exit: number | string, outputTail: string) => void;
}

export interface ServerNode {
  readonly index: number;
  readonly name: string;
  /** Base URL of its HTTP API. */
  readonly url: string;
  /** Its Raft address as /v1/status/leader reports it. */
  readonly rpcAddress: string;
  readonly dataDir: string;
}

export class Cluster {
  readonly nodes: readonly ServerNode[];
  private readonly agents: (AgentProcess | undefined)[];
  private readonly paused = new Set<number>();
  private readonly extraArgs: string[][];
  /** Processes the harness itself signalled to stop; any other exit is a crash. */
  private readonly stopping = new WeakSet<AgentProcess>();

  constructor(private readonly options: ClusterOptions) {
    const { network, dataRoot } = options;
    this.nodes = network.addresses.map((a, i) => ({
      index: i,
      name: `s${i + 1}`,
      url: `http://${a.host}:${a.httpPort}`,
      rpcAddress: `${a.host}:${a.serverPort}`,
      dataDir: join(dataRoot, `s${i + 1}`),
    }));
    this.agents = this.nodes.map(() => undefined);
    this.extraArgs = this.nodes.map(() => []);
  }

  get size(): number {
    return this.nodes.length;
  }

  get network(): Network {
    return this.options.network;
  }

  /** Starts every server (they bootstrap through -bootstrap-expect and find each other by -retry-join). */
  async start(): Promise<void> {
    await mkdir(this.options.logRoot, { recursive: true });
    for (const node of this.nodes) {
      await mkdir(node.dataDir, { recursive: true });
      this.spawn(node.index);
    }
  }

  private spawn(i: number): void {
    const node = this.nodes[i]!;
    const { addresses } = this.options.network;
    const me = addresses[i]!;
    const agent = spawnAgent({
      name: node.name,
      host: me.host,
      ports: { http: me.httpPort, server: me.serverPort, serfLan: me.serfPort },
      flags: [
        ...serverFlags({
          name: node.name,
          dataDir: node.dataDir,
          host: me.host,
          join: addresses.flatMap((a, j) => (j === i ? [] : [`${a.host}:${a.serfPort}`])),
          bootstrapExpect: this.size,
          raftMultiplier: this.options.raftMultiplier ?? 1,
          logLevel: "info",
        }),
        ...this.extraArgs[i]!,
      ],
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

  /** Starts server `i` again on its kept data directory; `extraArgs` replace the previous extra flags. */
  restart(i: number, extraArgs: string[] = []): void {
    if (this.isRunning(i)) throw new Error(`${this.nodes[i]!.name} is still running`);
    this.extraArgs[i] = extraArgs;
    this.spawn(i);
  }

  /** Starts every server that is down and resumes every paused one. */
  reviveAll(): void {
    for (const node of this.nodes) {
      this.resume(node.index);
      if (!this.isRunning(node.index)) this.restart(node.index, this.extraArgs[node.index]);
    }
  }

  /** Stops every server by PID (paused ones are resumed first so that they can take the signal). */
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
   * Every server running, unpaused, and naming the same leader: the state to wait for before the next fault,
   * so that each fault strikes a whole cluster and its recovery time means one thing.
   */
  async healthy(): Promise<boolean> {
    if (!this.nodes.every((n) => this.isServing(n.index))) return false;
    const leader = await this.leader();
    if (leader === undefined) return false;
    const expected = this.nodes[leader]!.rpcAddress;
    const answers = await Promise.all(this.nodes.map((n) => leaderAddress(n.url, 1000)));
    return answers.every((a) => a === expected);
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
