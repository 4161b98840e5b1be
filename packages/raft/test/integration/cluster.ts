import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { openLevelRaftNode, type ServerRaftNode } from "../../src/level-node.js";
import type { RaftObserver } from "../../src/node/commit-timer.js";
import { NotLeaderError, ProposalDroppedError, RaftTimeoutError } from "../../src/node/errors.js";
import { realScheduler } from "../../src/node/ports.js";
import { KvMachine, putCommand } from "./kv-machine.js";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface ClusterOptions {
  snapshotThreshold?: number;
  /**
   * The nodes' snapshot check interval. Its timers (the only ones between this and twice this long) are not
   * run by the clock but kept in `snapshotChecks`, for the test to fire.
   */
  snapshotIntervalMs?: number;
  trailingLogs?: number;
  /** Observers by node id. */
  observers?: Record<string, RaftObserver>;
}

/** Real RaftNodes with LevelDB in temporary directories, talking ws over loopback. */
export class TestCluster {
  readonly nodes = new Map<string, ServerRaftNode<number>>();
  readonly machines = new Map<string, KvMachine>();
  readonly addresses: Record<string, string> = {};
  readonly logs: Array<Record<string, unknown>> = [];
  /** Snapshot checks armed and not yet fired, with `snapshotIntervalMs`: whose, and its callback. */
  readonly snapshotChecks: Array<{ node: string; fire: () => void }> = [];
  /** Per-node offsets added to the monotonic clock the driver ticks by (see `jumpClock`). */
  private readonly clockOffsets = new Map<string, number>();

  private constructor(
    private readonly root: string,
    readonly ids: string[],
    private readonly options: ClusterOptions,
  ) {}

  static async create(ids: string[], options: ClusterOptions = {}): Promise<TestCluster> {
    const cluster = new TestCluster(await mkdtemp(join(tmpdir(), "cairn-raft-it-")), ids, options);
    for (const id of ids) cluster.addresses[id] = `127.0.0.1:${await freePort()}`;
    return cluster;
  }

  /** Starts (or restarts) `id` on its data directory and address. */
  async start(
    id: string,
    extra: { bootstrap?: boolean; knowsPeers?: boolean } = {},
  ): Promise<ServerRaftNode<number>> {
    const machine = new KvMachine();
    const logger = pino(
      { level: "info", base: { node: id } },
      { write: (l: string) => this.logs.push(JSON.parse(l)) },
    );
    const port = Number(this.addresses[id]!.split(":")[1]);
    const interval = this.options.snapshotIntervalMs;
    const scheduler = {
      ...realScheduler,
      now: () => performance.now() + (this.clockOffsets.get(id) ?? 0),
      setTimeout: (fn: () => void, ms: number) => {
        if (interval === undefined || ms < interval || ms >= 2 * interval)
          return realScheduler.setTimeout(fn, ms);
        this.snapshotChecks.push({ node: id, fire: fn });
        return undefined;
      },
    };
    const node = await openLevelRaftNode<number>({
      id,
      clusterId: "it",
      dataDir: join(this.root, id),
      host: "127.0.0.1",
      port,
      peers: extra.knowsPeers === false ? {} : this.addresses,
      ...(extra.bootstrap === false ? {} : { bootstrap: this.ids }),
      stateMachine: machine,
      logger,
      tickMs: 20,
      electionTicks: 10,
      heartbeatTicks: 2,
      scheduler,
      ...(this.options.observers?.[id] ? { observer: this.options.observers[id] } : {}),
      ...(this.options.snapshotThreshold ? { snapshotThreshold: this.options.snapshotThreshold } : {}),
      ...(this.options.trailingLogs === undefined ? {} : { trailingLogs: this.options.trailingLogs }),
      ...(interval === undefined ? {} : { snapshotIntervalMs: interval }),
      transportLimits: { backoff: { initialMs: 20, maxMs: 200 } },
    });
    this.nodes.set(id, node);
    this.machines.set(id, machine);
    return node;
  }

  /**
   * Moves `id`'s monotonic clock forward by `ms` at once: to that node it is as if its process had been
   * stalled that long (a GC pause, SIGSTOP) while the rest of the cluster ran on.
   */
  jumpClock(id: string, ms: number): void {
    this.clockOffsets.set(id, (this.clockOffsets.get(id) ?? 0) + ms);
  }

  /** Stops `id` at once, as a crash would: nothing beyond what was already fsynced survives. */
  async kill(id: string): Promise<void> {
    const node = this.nodes.get(id);
    this.nodes.delete(id);
    await node?.stop();
  }

  async leader(timeoutMs = 10_000): Promise<ServerRaftNode<number>> {
    let found: ServerRaftNode<number> | undefined;
    await waitUntil(
      () => {
        const leaders = [...this.nodes.values()].filter((n) => n.isLeader());
        found = leaders.length === 1 ? leaders[0] : undefined;
        return found !== undefined;
      },
      "a leader is elected",
      timeoutMs,
    );
    return found!;
  }

  /** Writes through the current leader, retrying while leadership moves; resolves once acknowledged. */
  async put(key: string, value: string): Promise<number> {
    for (;;) {
      const leader = await this.leader();
      try {
        return await leader.propose(putCommand(key, value));
      } catch (err) {
        const retry =
          err instanceof NotLeaderError ||
          err instanceof ProposalDroppedError ||
          err instanceof RaftTimeoutError;
        if (!retry && (err as Error).name !== "NodeStoppedError") throw err;
      }
    }
  }

  /** Waits until every running node has applied through `index`. */
  async converged(index: number): Promise<void> {
    await waitUntil(
      () => [...this.nodes.values()].every((n) => n.appliedIndex >= index),
      `all running nodes applied ${index}`,
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.nodes.keys()].map((id) => this.kill(id)));
    await rm(this.root, { recursive: true, force: true });
  }
}
