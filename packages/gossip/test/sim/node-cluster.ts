import { Prng, SimNetwork, VirtualClock } from "@cairn/testkit";
import { type GossipConfig, GossipNode, lanConfig, type Member, type Message } from "../../src/index.js";
import { simTransport } from "./sim-transport.js";

export interface NodeClusterOptions {
  members: number;
  seed: number;
  config?: Partial<GossipConfig>;
  /** Probability that a packet (not push-pull) is lost. */
  loss?: number;
}

export interface Failure {
  at: number;
  observer: string;
  subject: string;
}

/**
 * Real GossipNodes (the production driver and membership core) over the test kit's simulated network and
 * virtual clock: latency 1-10 ms per pair with jitter and some reordering, seeded loss, partitions, and
 * crashes that stop a node without a word to anyone.
 */
export class NodeCluster {
  readonly clock = new VirtualClock();
  readonly network: SimNetwork<readonly Message[]>;
  readonly nodes = new Map<string, GossipNode>();
  readonly failures: Failure[] = [];
  private readonly crashed = new Set<string>();
  private readonly prng: Prng;

  private constructor(readonly options: NodeClusterOptions) {
    this.prng = new Prng(options.seed);
    const latencies = new Map<string, number>();
    const latencyPrng = this.prng.fork();
    this.network = new SimNetwork(this.clock, this.prng.fork(), {
      latency: (from, to) => {
        const key = from < to ? `${from}|${to}` : `${to}|${from}`;
        let ms = latencies.get(key);
        if (ms === undefined) {
          ms = 1 + latencyPrng.next() * 9;
          latencies.set(key, ms);
        }
        return ms;
      },
      jitter: 0.2,
      reorder: 0.05,
      loss: options.loss ?? 0,
    });
  }

  /** Starts every node; all but the first join through the first, spread over two seconds. */
  static async start(options: NodeClusterOptions): Promise<NodeCluster> {
    const cluster = new NodeCluster(options);
    const config = lanConfig(options.config);
    for (let i = 0; i < options.members; i++) {
      const name = nameOf(i);
      const stream = cluster.prng.fork();
      const node = new GossipNode({
        name,
        config,
        transport: simTransport(cluster.network, cluster.clock, name),
        scheduler: cluster.clock,
        random: () => stream.next(),
      });
      node.on("member-failed", (m: Member) =>
        cluster.failures.push({ at: cluster.clock.now(), observer: name, subject: m.name }),
      );
      await node.start();
      cluster.nodes.set(name, node);
    }
    for (let i = 1; i < options.members; i++) {
      const node = cluster.get(nameOf(i));
      cluster.clock.after(cluster.prng.int(0, 2000), () => void node.join([nameOf(0)]));
    }
    return cluster;
  }

  get(name: string): GossipNode {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  live(): string[] {
    return [...this.nodes.keys()].filter((n) => !this.crashed.has(n));
  }

  /** Stops `name` without telling anyone (GossipNode.close): the others must detect it. */
  async crash(name: string): Promise<void> {
    this.crashed.add(name);
    await this.get(name).close();
  }

  /** State of `subject` as `observer` sees it. */
  stateOf(observer: string, subject: string): string | undefined {
    return this.get(observer)
      .members()
      .find((m) => m.name === subject)?.state;
  }

  /** True when every live node sees every live node alive. */
  converged(): boolean {
    const live = this.live();
    return live.every((o) => live.every((s) => this.stateOf(o, s) === "alive"));
  }

  runFor(ms: number): void {
    this.clock.runFor(ms);
  }

  /** Runs until `done()` or `limitMs` of virtual time pass, checking each virtual second; returns done(). */
  runUntil(done: () => boolean, limitMs: number): boolean {
    const until = this.clock.now() + limitMs;
    while (!done() && this.clock.now() < until) this.clock.runFor(1000);
    return done();
  }

  async stop(): Promise<void> {
    for (const name of this.live()) await this.get(name).close();
  }
}

export function nameOf(i: number): string {
  return `node-${i}`;
}
