import { Prng, SimNetwork, VirtualClock } from "@cairn/testkit";
import {
  type GossipConfig,
  GossipNode,
  lanConfig,
  type Member,
  type MemberEventType,
  type Message,
} from "../../src/index.js";
import { simTransport } from "./sim-transport.js";

export interface SimOptions {
  members: number;
  seed: number;
  config?: Partial<GossipConfig>;
  /** Probability that a packet is dropped (push-pull rides a stream and is not). */
  loss?: number;
  /** Members sit on a square plane this many ms across; one-way latency is half the distance plus 0.5 ms. */
  spreadMs?: number;
  /** Relative jitter on each packet's latency. */
  jitter?: number;
  /** Probability that a packet is held back (up to ten times its latency), so later ones overtake it. */
  reorder?: number;
  /** Wire size of a packet, counted per sender (costs CPU; the benchmark passes the frame encoder). */
  measure?: (from: string, packet: readonly Message[]) => number;
}

export interface SimMember {
  name: string;
  node: GossipNode;
  x: number;
  y: number;
  crashed: boolean;
  bytesSent: number;
}

export type NodeEvent =
  | { type: MemberEventType; member: Member }
  | { type: "user-message"; origin: string; payload: unknown };

export interface RecordedEvent {
  at: number;
  observer: string;
  event: NodeEvent;
}

const MEMBER_EVENTS: readonly MemberEventType[] = [
  "member-join",
  "member-update",
  "member-failed",
  "member-leave",
  "member-reap",
];

/**
 * Deterministic cluster of real GossipNodes (the production driver over the membership core) on the test
 * kit's virtual clock and simulated network: latency derived from positions on a plane (so Vivaldi has a
 * ground truth), seeded loss, partitions, crashes and restarts.
 */
export class SimCluster {
  readonly members = new Map<string, SimMember>();
  readonly events: RecordedEvent[] = [];
  readonly clock = new VirtualClock();
  readonly network: SimNetwork<readonly Message[]>;
  private readonly prng: Prng;
  private readonly config: GossipConfig;
  private readonly spreadMs: number;

  private constructor(readonly options: SimOptions) {
    this.prng = new Prng(options.seed);
    this.config = lanConfig(options.config);
    this.spreadMs = options.spreadMs ?? 20;
    this.network = new SimNetwork(this.clock, this.prng.fork(), {
      latency: (from, to) => this.baseLatency(from, to),
      jitter: options.jitter ?? 0.1,
      loss: options.loss ?? 0,
      reorder: options.reorder ?? 0,
    });
  }

  static async start(options: SimOptions): Promise<SimCluster> {
    const sim = new SimCluster(options);
    for (let i = 0; i < options.members; i++) {
      const name = nameOf(i);
      await sim.add(name, sim.prng.next() * sim.spreadMs, sim.prng.next() * sim.spreadMs);
    }
    return sim;
  }

  get now(): number {
    return this.clock.now();
  }

  /** Every member joins through member 0, staggered over the first `spreadMs` of simulated time. */
  bootstrap(spreadMs = 2000): void {
    for (const member of this.members.values()) {
      if (member.name === nameOf(0)) continue;
      this.clock.after(Math.floor(this.prng.next() * spreadMs), () => void member.node.join([nameOf(0)]));
    }
  }

  runFor(ms: number): void {
    this.clock.runFor(ms);
  }

  runUntil(until: number): void {
    this.clock.runUntil(until);
  }

  /** Stops the member without a word to anyone. */
  crash(name: string): void {
    const member = this.get(name);
    member.crashed = true;
    void member.node.close();
  }

  /** A fresh process under the same name and address: incarnation 0, rejoining through `via`. */
  async restart(name: string, via: string): Promise<void> {
    const old = this.get(name);
    if (!old.crashed) this.crash(name);
    const fresh = await this.add(name, old.x, old.y);
    void fresh.node.join([via]);
  }

  leave(name: string): void {
    void this.get(name).node.leave();
  }

  /** Splits the cluster: packets cross between groups only after `heal()`. */
  split(groups: string[][]): void {
    this.network.partition(groups);
  }

  heal(): void {
    this.network.heal();
  }

  /** Delivers `packet` to `to` as if `from` sent it (a forged or stale claim). */
  inject(from: string, to: string, packet: Message[]): void {
    this.network.send(from, to, packet, { reliable: true });
  }

  get(name: string): SimMember {
    const member = this.members.get(name);
    if (!member) throw new Error(`no member ${name}`);
    return member;
  }

  live(): SimMember[] {
    return [...this.members.values()].filter((m) => !m.crashed);
  }

  /** State of `subject` as seen by `observer`. */
  stateOf(observer: string, subject: string): string | undefined {
    return this.get(observer).node.member(subject)?.state;
  }

  /** True when every live member sees every live member alive. */
  converged(): boolean {
    const live = this.live();
    return live.every((o) => live.every((s) => o.node.member(s.name)?.state === "alive"));
  }

  /** One-way latency between two members, before jitter (ms). */
  baseLatency(a: string, b: string): number {
    const p = this.get(a);
    const q = this.get(b);
    return Math.hypot(p.x - q.x, p.y - q.y) / 2 + 0.5;
  }

  totalBytes(): number {
    let sum = 0;
    for (const m of this.members.values()) sum += m.bytesSent;
    return sum;
  }

  private async add(name: string, x: number, y: number): Promise<SimMember> {
    // Each member draws from its own stream, so network randomness (loss, jitter) does not steer its choices.
    const stream = this.prng.fork();
    const open = simTransport(this.network, this.clock, name);
    const measure = this.options.measure;
    const node = new GossipNode({
      name,
      config: this.config,
      tags: { role: "node", dc: "dc1" },
      scheduler: this.clock,
      random: () => stream.next(),
      transport: async (handlers) => {
        const transport = await open(handlers);
        if (!measure) return transport;
        return {
          ...transport,
          address: transport.address,
          send: (to, packet) => {
            member.bytesSent += measure(name, packet);
            transport.send(to, packet);
          },
        };
      },
    });
    const member: SimMember = { name, node, x, y, crashed: false, bytesSent: 0 };
    this.members.set(name, member);
    const record = (event: NodeEvent) => this.events.push({ at: this.clock.now(), observer: name, event });
    for (const type of MEMBER_EVENTS) node.on(type, (m: Member) => record({ type, member: m }));
    node.on("user-message", ({ origin, payload }) => record({ type: "user-message", origin, payload }));
    await node.start();
    return member;
  }
}

export function nameOf(i: number): string {
  return `node-${i}`;
}
