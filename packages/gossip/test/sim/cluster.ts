import { EventQueue, Prng } from "@cairn/testkit";
import type { CoreEvent, Message, Output } from "../../src/index.js";
import {
  CoordinatePingDelegate,
  type GossipConfig,
  lanConfig,
  Membership,
  VivaldiClient,
} from "../../src/index.js";

export interface SimOptions {
  members: number;
  seed: number;
  config?: Partial<GossipConfig>;
  /** Probability that a packet is dropped. */
  loss?: number;
  /** Members sit on a square plane this many ms across; one-way latency is half the distance plus 0.5 ms. */
  spreadMs?: number;
  /** Relative jitter on each packet's latency. */
  jitter?: number;
  /** Wire size of a packet, counted per sender (costs CPU; the benchmark passes the frame encoder). */
  measure?: (from: string, packet: readonly Message[]) => number;
}

interface SimMember {
  name: string;
  core: Membership;
  coordinates: CoordinatePingDelegate;
  x: number;
  y: number;
  crashed: boolean;
  wakeAt: number;
  bytesSent: number;
}

type SimEvent =
  | { kind: "wake"; name: string }
  | { kind: "deliver"; to: string; from: string; packet: Message[] };

export interface RecordedEvent {
  at: number;
  observer: string;
  event: CoreEvent;
}

/**
 * Deterministic in-process cluster: virtual clock, discrete events, a lossy network with latency derived from
 * positions on a plane (so Vivaldi has a ground truth), partitions, crashes and restarts.
 */
export class SimCluster {
  readonly members = new Map<string, SimMember>();
  readonly events: RecordedEvent[] = [];
  now = 0;
  private readonly queue = new EventQueue<SimEvent>();
  private readonly prng: Prng;
  private readonly config: GossipConfig;
  private readonly loss: number;
  private readonly jitter: number;
  private readonly spreadMs: number;
  private readonly measure: ((from: string, packet: readonly Message[]) => number) | undefined;
  private partition: Map<string, number> | undefined;

  constructor(readonly options: SimOptions) {
    this.prng = new Prng(options.seed);
    this.config = lanConfig(options.config);
    this.loss = options.loss ?? 0;
    this.jitter = options.jitter ?? 0.1;
    this.spreadMs = options.spreadMs ?? 20;
    this.measure = options.measure;
    for (let i = 0; i < options.members; i++) this.add(nameOf(i));
  }

  /** Every member joins through member 0, staggered over the first `spreadMs` of simulated time. */
  bootstrap(spreadMs = 2000): void {
    for (const member of this.members.values()) {
      if (member.name === nameOf(0)) continue;
      this.schedule(this.now + Math.floor(this.prng.next() * spreadMs), {
        kind: "wake",
        name: `join:${member.name}`,
      });
    }
  }

  runFor(ms: number): void {
    this.runUntil(this.now + ms);
  }

  runUntil(until: number): void {
    for (;;) {
      if (this.queue.peekTime() > until) break;
      const next = this.queue.pop();
      if (!next) break;
      this.now = next.at;
      this.dispatch(next.item);
    }
    this.now = until;
  }

  crash(name: string): void {
    const member = this.get(name);
    member.crashed = true;
  }

  /** A fresh process under the same name and address: incarnation 0, rejoining through `via`. */
  restart(name: string, via: string): void {
    const old = this.get(name);
    const fresh = this.create(name, old.x, old.y);
    this.members.set(name, fresh);
    this.apply(fresh, fresh.core.join([via], this.now));
  }

  leave(name: string): void {
    const member = this.get(name);
    this.apply(member, member.core.leave(this.now));
  }

  /** Splits the cluster: packets cross between groups only after `heal()`. */
  split(groups: string[][]): void {
    this.partition = new Map();
    groups.forEach((group, index) => {
      for (const name of group) this.partition?.set(name, index);
    });
  }

  heal(): void {
    this.partition = undefined;
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
    return this.get(observer).core.member(subject)?.state;
  }

  /** True when every live member sees every live member alive. */
  converged(): boolean {
    const live = this.live();
    return live.every((o) => live.every((s) => o.core.member(s.name)?.state === "alive"));
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

  private add(name: string): void {
    this.members.set(
      name,
      this.create(name, this.prng.next() * this.spreadMs, this.prng.next() * this.spreadMs),
    );
  }

  private create(name: string, x: number, y: number): SimMember {
    // Each member draws from its own stream, so network randomness (loss, jitter) does not steer its choices.
    const stream = this.prng.fork();
    const random = () => stream.next();
    const coordinates = new CoordinatePingDelegate(new VivaldiClient(random));
    const core = new Membership({
      name,
      address: name,
      config: this.config,
      random,
      now: this.now,
      tags: { role: "node", dc: "dc1" },
      pingDelegate: coordinates,
    });
    const member: SimMember = {
      name,
      core,
      coordinates,
      x,
      y,
      crashed: false,
      wakeAt: Number.POSITIVE_INFINITY,
      bytesSent: 0,
    };
    this.scheduleWake(member);
    return member;
  }

  private dispatch(event: SimEvent): void {
    if (event.kind === "wake") {
      if (event.name.startsWith("join:")) {
        const member = this.get(event.name.slice(5));
        this.apply(member, member.core.join([nameOf(0)], this.now));
        return;
      }
      const member = this.members.get(event.name);
      if (!member || member.crashed || member.wakeAt !== this.now) return;
      member.wakeAt = Number.POSITIVE_INFINITY;
      this.apply(member, member.core.tick(this.now));
      return;
    }
    const member = this.members.get(event.to);
    if (!member || member.crashed) return;
    this.apply(member, member.core.receive(event.from, event.packet, this.now));
  }

  private apply(member: SimMember, output: Output): void {
    for (const event of output.events) this.events.push({ at: this.now, observer: member.name, event });
    for (const { to, packet } of output.send) {
      if (this.measure) member.bytesSent += this.measure(member.name, packet);
      // Push-pull rides a stream (TCP in memberlist, one ws connection here): it is not lost, only cut off.
      const isStream = packet[0]?.t === "push-pull";
      if (!isStream && this.prng.next() < this.loss) continue;
      const partition = this.partition;
      if (partition && partition.get(member.name) !== partition.get(to)) continue;
      if (!this.members.has(to)) continue;
      const latency = this.baseLatency(member.name, to) * (1 + (this.prng.next() * 2 - 1) * this.jitter);
      this.schedule(this.now + latency, { kind: "deliver", to, from: member.name, packet });
    }
    this.scheduleWake(member);
  }

  private scheduleWake(member: SimMember): void {
    const at = Math.max(this.now, member.core.nextDeadline());
    if (at >= member.wakeAt) return;
    member.wakeAt = at;
    this.schedule(at, { kind: "wake", name: member.name });
  }

  private schedule(at: number, event: SimEvent): void {
    this.queue.push(at, event);
  }
}

export function nameOf(i: number): string {
  return `node-${i}`;
}
