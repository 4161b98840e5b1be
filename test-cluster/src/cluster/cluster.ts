// A cluster of real `cairn agent -server` processes, each with its own data directory, on a Network. The
// harness can kill, pause, resume and restart any of them; every process it starts is stopped by PID when
// the cluster stops (and by the process registry's exit hook if the harness dies first).

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { REPO_ROOT } from "../../../scripts/bench/lib/cairn-cluster.js";
import { type Spawned, spawnTracked, stop } from "../../../scripts/bench/lib/processes.js";
import { httpCall } from "../http.js";
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
  private readonly processes: (Spawned | undefined)[];
  private readonly paused = new Set<number>();
  private readonly extraArgs: string[][];
  /** Processes the harness itself signalled to stop; any other exit is a crash. */
  private readonly stopping = new WeakSet<Spawned>();

  constructor(private readonly options: ClusterOptions) {
    const { network, dataRoot } = options;
    this.nodes = network.addresses.map((a, i) => ({
      index: i,
      name: `s${i + 1}`,
      url: `http://${a.host}:${a.httpPort}`,
      rpcAddress: `${a.host}:${a.serverPort}`,
      dataDir: join(dataRoot, `s${i + 1}`),
    }));
    this.processes = this.nodes.map(() => undefined);
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

  private args(i: number): string[] {
    const { addresses } = this.options.network;
    const me = addresses[i]!;
    const joins = addresses.flatMap((a, j) => (j === i ? [] : ["-retry-join", `${a.host}:${a.serfPort}`]));
    return [
      "-server",
      "-bootstrap-expect",
      String(this.size),
      "-node",
      this.nodes[i]!.name,
      "-data-dir",
      this.nodes[i]!.dataDir,
      "-bind",
      me.host,
      "-client",
      me.host,
      "-http-port",
      String(me.httpPort),
      "-server-port",
      String(me.serverPort),
      "-serf-lan-port",
      String(me.serfPort),
      "-log-level",
      "info",
      "-hcl",
      `performance { raft_multiplier = ${this.options.raftMultiplier ?? 1} }`,
      ...joins,
      ...this.extraArgs[i]!,
    ];
  }

  private spawn(i: number): void {
    const node = this.nodes[i]!;
    // The same command line as the bench library's spawnCairnAgent, run through the network's wrapper.
    const agent = [
      "--conditions=source",
      "--import",
      "tsx",
      "packages/cli/src/main.ts",
      "agent",
      ...this.args(i),
    ];
    const { command, args } = this.options.network.wrap(i, process.execPath, agent);
    const spawned = spawnTracked(node.name, command, args, {
      cwd: this.options.treeRoot ?? REPO_ROOT,
      logFile: join(this.options.logRoot, `${node.name}.log`),
    });
    this.processes[i] = spawned;
    void spawned.exited.then((exit) => {
      if (!this.stopping.has(spawned)) this.options.onCrash?.(node, exit, spawned.tail());
    });
  }

  isRunning(i: number): boolean {
    const p = this.processes[i];
    return p !== undefined && p.child.exitCode === null && p.child.signalCode === null;
  }

  isPaused(i: number): boolean {
    return this.paused.has(i);
  }

  /** Running and not paused. */
  isServing(i: number): boolean {
    return this.isRunning(i) && !this.paused.has(i);
  }

  pid(i: number): number | undefined {
    return this.isRunning(i) ? this.processes[i]!.pid : undefined;
  }

  async kill(i: number): Promise<void> {
    const p = this.processes[i];
    if (!p || !this.isRunning(i)) return;
    this.stopping.add(p);
    process.kill(p.pid, "SIGKILL");
    this.paused.delete(i);
    await p.exited;
  }

  /** SIGTERM (a clean shutdown), SIGKILL if it does not exit within a few seconds. */
  async terminate(i: number): Promise<void> {
    const p = this.processes[i];
    if (!p) return;
    this.stopping.add(p);
    this.resume(i);
    await stop(p, 5000);
  }

  pause(i: number): void {
    const p = this.processes[i];
    if (!p || !this.isRunning(i)) return;
    process.kill(p.pid, "SIGSTOP");
    this.paused.add(i);
  }

  resume(i: number): void {
    const p = this.processes[i];
    if (!p || !this.paused.has(i)) return;
    this.paused.delete(i);
    if (this.isRunning(i)) process.kill(p.pid, "SIGCONT");
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
    await Promise.all(
      this.processes.map(async (p, i) => {
        if (!p) return;
        this.stopping.add(p);
        this.resume(i);
        await stop(p, 2000);
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
        if (!this.isServing(n.index)) return "";
        const r = await httpCall(`${n.url}/v1/status/leader`, "GET", undefined, timeoutMs);
        if (r.kind !== "reply" || r.status !== 200) return "";
        const leader: unknown = JSON.parse(r.body);
        return typeof leader === "string" ? leader : "";
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
    const answers = await Promise.all(
      this.nodes.map((n) => httpCall(`${n.url}/v1/status/leader`, "GET", undefined, 1000)),
    );
    return answers.every(
      (a) => a.kind === "reply" && a.status === 200 && a.body === JSON.stringify(expected),
    );
  }

  async awaitHealthy(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (await this.healthy()) return true;
      await new Promise((r) => setTimeout(r, 200));
    }
    return false;
  }

  async awaitLeader(timeoutMs = 60_000): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      const leader = await this.leader();
      if (leader !== undefined) return leader;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`no leader within ${timeoutMs} ms`);
  }
}
