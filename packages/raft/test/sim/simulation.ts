import { type Owner, Prng, VirtualClock } from "@cairn/testkit";
import type { Entry, Message } from "../../src/core/types.js";
import { InvariantViolation, SafetyChecker } from "./checker.js";
import { ClientHistory } from "./history.js";
import { type ServerWorld, type SimNodeOptions, SimServer } from "./sim-server.js";
import { SimRaftNetwork } from "./sim-transport.js";
import { encodeWrite, type SmState } from "./state-machine.js";

/** Simulated milliseconds per tick (each server's clock is a few percent off, see makeServer). */
const TICK = 100;
const ELECTION_TICKS = 10;
const HEARTBEAT_TICKS = 2;
/** A healed cluster must acknowledge a write within this many election timeouts. */
const LIVENESS_TIMEOUTS = 10;

export interface SimOptions {
  seed: number;
  /** Ticks of faults before healing. */
  chaosTicks?: number;
  /** Ticks after healing (liveness and convergence). */
  healTicks?: number;
  traceSize?: number;
}

export interface SimStats {
  events: number;
  leaders: number;
  applied: number;
  writesAcked: number;
  readsChecked: number;
  leaseReads: number;
  snapshotsInstalled: number;
  confChanges: number;
  transfers: number;
  crashes: number;
}

export interface SimResult {
  seed: number;
  ok: boolean;
  error?: string;
  trace: string[];
  stats: SimStats;
}

/**
 * One deterministic run of a simulated cluster of real RaftNodes. Everything - configuration, fault mix,
 * timing, network behaviour, client traffic - derives from the seed, so a seed replays exactly.
 *
 * Each server runs the real driver (src/node.ts) over a simulated disk (a write is durable only at its
 * simulated fsync), network and clock (SimServer). During the chaos phase the network drops, duplicates,
 * delays and reorders messages and is partitioned (both ways or one way), servers crash (also as a write
 * finishes: just before it lands, or just after, before what it promised is sent), restart from what they
 * fsynced, stall (their driver then catches up on ticks by its monotonic clock), membership changes and
 * leadership transfers run, and logs are compacted so lagging servers need snapshots. Then everything heals
 * and the run must converge. SafetyChecker and ClientHistory check after every event; checkEnd checks
 * liveness.
 */
export class Simulation implements ServerWorld {
  private readonly rng: Prng;
  readonly clock = new VirtualClock();
  readonly network: SimRaftNetwork;
  private readonly servers = new Map<string, SimServer>();
  private readonly checker = new SafetyChecker();
  /** Ring buffer of recent happenings; messages are formatted only when a failure prints the trace. */
  private readonly trace: { at: number; text: string | Message }[] = [];
  private traceAt = 0;
  private healed = false;
  private healAt = 0;
  private nextServer = 1;
  private failure: Error | undefined;

  private readonly fsyncMax: number;
  /** Chance that a server dies as a write finishes: just before it lands, or just after (before sending). */
  private readonly fsyncCrash: number;

  private readonly history = new ClientHistory();
  private firstAckAfterHeal: number | null = null;
  private readonly leaderTerms = new Set<number>();

  readonly stats: SimStats = {
    events: 0,
    leaders: 0,
    applied: 0,
    writesAcked: 0,
    readsChecked: 0,
    leaseReads: 0,
    snapshotsInstalled: 0,
    confChanges: 0,
    transfers: 0,
    crashes: 0,
  };

  private readonly chaosEnd: number;
  private readonly end: number;
  private readonly traceSize: number;
  private readonly makeServer: (id: string, bootstrap?: string[]) => SimServer;
  /**
   * Swarm testing: each seed weighs the fault kinds differently (some not at all), so runs range from
   * crash-heavy to partition-heavy instead of all being the same uniform mix.
   */
  private readonly faultWeights: number[];

  constructor(private readonly opts: SimOptions) {
    this.rng = new Prng(opts.seed);
    const r = this.rng;
    this.network = new SimRaftNetwork(this.clock, r.fork(), TICK);
    this.chaosEnd = (opts.chaosTicks ?? 250) * TICK;
    this.end = this.chaosEnd + Math.max(opts.healTicks ?? 250, 100) * TICK;
    this.traceSize = opts.traceSize ?? 200;
    this.fsyncMax = r.int(0, 20);
    this.fsyncCrash = r.pick([0, 0.001, 0.003, 0.01]);
    // One weight per case of fault(); the last (quiet) always stays possible.
    this.faultWeights = Array.from({ length: 13 }, (_, i) => (i === 12 || r.chance(0.6) ? r.int(1, 5) : 0));
    this.setNetwork();
    const voters = r.chance(0.5) ? 3 : 5;
    const ids = Array.from({ length: voters }, () => `n${this.nextServer++}`);
    const config: SimNodeOptions = {
      electionTicks: ELECTION_TICKS,
      heartbeatTicks: HEARTBEAT_TICKS,
      maxInflight: r.int(1, 8),
      maxAppendBytes: r.pick([1, 8, 64, 1024]),
      leaseDriftTicks: 2,
      snapshotThreshold: r.int(3, 40),
      trailingLogs: trailingLogsFor(opts.seed),
      ...snapshotIntervalFor(opts.seed),
      maxUncommittedEntries: maxUncommittedFor(opts.seed),
      // Half the seeds keep only a few entries in memory, so lagging followers and restarts read back.
      ...(r.chance(0.5) ? { logCache: { maxEntries: r.int(1, 8), maxBytes: r.pick([0, 64, 1 << 20]) } } : {}),
    };
    this.record(`seed ${opts.seed}: ${voters} voters ${JSON.stringify(config)}`);
    this.makeServer = (id, bootstrap) => {
      const own = r.fork();
      const tickMs = TICK + r.int(-2, 2);
      return new SimServer(
        id,
        { ...config, tickMs },
        () => this.addresses(),
        () => own.next(),
        this,
        bootstrap,
      );
    };
    this.network.onSend = (from, m) => this.guard(() => this.checker.sent(this.servers.get(from)!, m));
    this.network.onDeliver = (m) => this.record(m);
    const first = ids.map((id) => this.makeServer(id, ids));
    for (const s of first) {
      this.servers.set(s.id, s);
      this.network.add(s);
    }
    // Processes start at different moments, so their tick timers run out of phase as real ones do.
    for (const s of first) this.clock.schedule(r.int(1, TICK), () => s.start());
    this.clock.schedule(r.int(0, 300), () => this.fault());
    this.clock.schedule(r.int(0, 50), () => this.client());
    this.clock.schedule(this.chaosEnd, () => this.heal());
  }

  async run(): Promise<SimResult> {
    try {
      await this.clock.runUntilAsync(this.end, (owner) => this.afterEvent(owner));
      this.checkEnd();
      return { seed: this.opts.seed, ok: true, trace: [], stats: this.finalStats() };
    } catch (e) {
      const error =
        e instanceof InvariantViolation ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e);
      return { seed: this.opts.seed, ok: false, error, trace: this.lastTrace(), stats: this.finalStats() };
    }
  }

  private finalStats(): SimStats {
    const h = this.history;
    return {
      ...this.stats,
      events: this.clock.events,
      writesAcked: h.acked,
      readsChecked: h.readsChecked,
      leaseReads: h.leaseReads,
    };
  }

  /** Checks run inside the driver's calls (its sends, applies): a failure must stop the run, not the driver. */
  private guard(check: () => void): void {
    try {
      check();
    } catch (err) {
      this.failure ??= err as Error;
    }
  }

  fail(message: string): void {
    this.failure ??= new InvariantViolation(message);
  }

  /** After every event: a failure seen inside it ends the run; then the invariants over all servers. */
  private afterEvent(owner: Owner | null): void {
    if (this.failure) throw this.failure;
    const touched = owner?.server === undefined ? this.servers.values() : [this.servers.get(owner.server)!];
    for (const s of touched) {
      const st = s.core?.status(false);
      if (!st) continue;
      if (st.role === "leader" && !this.leaderTerms.has(st.term)) {
        this.leaderTerms.add(st.term);
        this.stats.leaders++;
        this.record(`${s.id} is leader of term ${st.term}`);
      }
      this.checker.observe(s, this.servers.values());
    }
  }

  private addresses(): Record<string, string> {
    return Object.fromEntries([...this.servers.keys()].map((id) => [id, id]));
  }

  private addServer(s: SimServer): void {
    this.servers.set(s.id, s);
    this.network.add(s);
    s.start();
  }

  // ---------------------------------------------------------------- the servers' world

  sync(s: SimServer, owner: Owner, land: () => void): Promise<void> {
    return new Promise((resolve) => {
      this.clock.schedule(
        this.clock.now() + this.rng.int(0, this.fsyncMax),
        () => {
          const crash =
            !this.healed && this.rng.chance(this.fsyncCrash)
              ? this.rng.pick(["before", "after"] as const)
              : null;
          // "before": whatever was sent already (a leader's appends) is out, the write itself is lost.
          if (crash) this.record(`${s.id} crashes right ${crash} its write lands`);
          if (crash === "before") return this.crash(s);
          land();
          if (crash === "after") return this.crash(s);
          resolve();
        },
        owner,
      );
    });
  }

  persisted(s: SimServer, entries: Entry[], prevTerm: number): void {
    this.guard(() => this.checker.persisted(s, entries, prevTerm));
  }

  applied(s: SimServer, index: number, term: number): void {
    this.stats.applied++;
    this.guard(() => this.checker.applied(s, index, term));
  }

  restored(s: SimServer, sm: SmState, atStart: boolean): void {
    if (!atStart) {
      this.stats.snapshotsInstalled++;
      this.record(`${s.id}: installed snapshot ${sm.index}`);
    }
    this.guard(() => this.checker.restored(s, sm));
  }

  private crash(s: SimServer): void {
    s.crash();
    this.stats.crashes++;
    // Often the survivors find out at once that the process is gone (its address refuses connections, as
    // the transport tells RaftNode) and those that followed it campaign without waiting out its silence.
    if (this.rng.chance(0.5)) {
      this.clock.schedule(this.clock.now() + this.rng.int(1, 100), () => this.refused(s));
    }
    const downFor = this.rng.int(TICK, this.rng.pick([1, 3, 15, 40]) * TICK);
    this.clock.schedule(this.clock.now() + downFor, () => {
      if (s.alive || s.retired) return;
      this.record(`restart ${s.id}`);
      s.start();
    });
  }

  private refused(gone: SimServer): void {
    if (gone.alive) return; // restarted meanwhile: its address accepts again
    for (const s of this.servers.values()) {
      const p = s.process;
      if (!p) continue;
      this.clock.schedule(this.clock.now(), () => p.inbound.onRefused(gone.id), p.owner);
    }
  }

  // ---------------------------------------------------------------- network

  private setNetwork(): void {
    const r = this.rng;
    this.network.conditions = {
      drop: r.pick([0, 0, 0.01, 0.05, 0.15, 0.3]),
      dup: r.pick([0, 0, 0.02, 0.1]),
      minDelay: 1,
      maxDelay: r.pick([5, 20, 60, 150, 400]),
      // Now and then a message lingers for many election timeouts, to arrive stale and out of order.
      linger: 0.01,
    };
  }

  // ---------------------------------------------------------------- clients and faults

  private liveServers(): SimServer[] {
    return [...this.servers.values()].filter((s) => s.alive && s.pausedUntil <= this.clock.now());
  }

  /** The live leader with the highest term, if any. */
  private leader(): SimServer | null {
    let best: SimServer | null = null;
    let bestTerm = -1;
    for (const s of this.servers.values()) {
      const st = s.core?.status(false);
      if (st?.role === "leader" && st.term > bestTerm) {
        best = s;
        bestTerm = st.term;
      }
    }
    return best;
  }

  private client(): void {
    // The last stretch is quiet so every acknowledged write can reach every member.
    if (this.clock.now() > this.end - 40 * TICK) return;
    this.clock.schedule(this.clock.now() + this.rng.int(5, 60), () => this.client());
    const live = this.liveServers();
    if (live.length === 0) return;
    const r = this.rng;
    // Clients favour servers that claim leadership (stale ones too: that grows divergent suffixes).
    const leaders = live.filter((x) => x.role() === "leader");
    const s = leaders.length > 0 && r.chance(0.7) ? r.pick(leaders) : r.pick(live);
    const node = s.node!;
    if (r.chance(0.6)) {
      const id = this.history.nextWriteId();
      node.propose(encodeWrite(id)).then(
        (result) =>
          this.guard(() => {
            this.history.writeAnswered(id, result);
            if (this.healed && this.firstAckAfterHeal === null) this.firstAckAfterHeal = this.clock.now();
          }),
        () => {},
      );
    } else {
      const lease = r.chance(0.5);
      const served = this.history.readInvoked(lease, this.clock.now());
      node.readIndex({ lease }).then(
        () => this.guard(() => served(s)),
        () => {},
      );
    }
  }

  private pickFault(): number {
    const total = this.faultWeights.reduce((a, b) => a + b, 0);
    let x = this.rng.next() * total;
    for (let i = 0; i < this.faultWeights.length; i++) {
      x -= this.faultWeights[i]!;
      if (x < 0) return i;
    }
    return this.faultWeights.length - 1;
  }

  private fault(): void {
    if (this.healed) return;
    this.clock.schedule(this.clock.now() + this.rng.int(20, 400), () => this.fault());
    const r = this.rng;
    const net = this.network.net;
    const ids = [...this.servers.keys()];
    switch (this.pickFault()) {
      case 0: {
        const side = new Set(ids.filter(() => r.chance(0.5)));
        net.heal();
        for (const a of ids) for (const b of ids) if (side.has(a) !== side.has(b)) net.cut(a, b);
        this.record(`partition {${[...side].join(",")}} | rest`);
        return;
      }
      case 1: {
        const victim = r.chance(0.6) ? (this.leader()?.id ?? r.pick(ids)) : r.pick(ids);
        for (const o of ids) {
          if (o === victim) continue;
          net.cut(victim, o);
          net.cut(o, victim);
        }
        this.record(`isolate ${victim}`);
        return;
      }
      case 2: {
        // Mostly leader -> follower, so that follower falls behind and later runs in an election.
        const a = r.chance(0.6) ? (this.leader()?.id ?? r.pick(ids)) : r.pick(ids);
        const b = r.pick(ids);
        if (a === b) return;
        net.cut(a, b);
        this.record(`cut one way ${a}>${b}`);
        return;
      }
      case 3:
      case 4:
        net.heal();
        this.record("network healed");
        return;
      case 5: {
        const live = this.liveServers();
        if (live.length === 0) return;
        const s = r.chance(0.5) ? (this.leader() ?? r.pick(live)) : r.pick(live);
        this.record(`crash ${s.id}`);
        this.crash(s);
        return;
      }
      case 6: {
        this.setNetwork();
        const c = this.network.conditions;
        this.record(`network drop=${c.drop} dup=${c.dup} maxDelay=${c.maxDelay}`);
        return;
      }
      case 7:
      case 8:
        this.confChange();
        return;
      case 9: {
        const l = this.leader();
        if (!l || l.pausedUntil > this.clock.now()) return;
        const to = r.pick(l.core!.status(false).conf.voters);
        const started = l.core!.status(false).leadTransferee;
        l.node!.transferLeadership(to).catch(() => {});
        const now = l.core!.status(false).leadTransferee;
        this.record(`transfer ${l.id} -> ${to}: ${now === to && started !== to ? "started" : "refused"}`);
        if (now === to && started !== to) this.stats.transfers++;
        return;
      }
      case 10: {
        const live = this.liveServers();
        if (live.length === 0) return;
        const s = r.chance(0.5) ? (this.leader() ?? r.pick(live)) : r.pick(live);
        if (s.pausedUntil > this.clock.now()) return;
        s.pausedUntil = this.clock.now() + r.int(1, 25) * TICK;
        this.record(`pause ${s.id} until ${s.pausedUntil}`);
        return;
      }
      default:
        return; // quiet period
    }
  }

  private confChange(): void {
    const r = this.rng;
    const l = this.leader();
    if (!l || l.pausedUntil > this.clock.now()) return;
    const node = l.node!;
    const before = node.core.status(false);
    const conf = before.conf;
    const members = [...conf.voters, ...conf.learners];
    const op = r.pick(["add-learner", "promote", "remove"] as const);
    let id: string;
    if (op === "add-learner") {
      if (members.length >= 6) return;
      id = `n${this.nextServer}`;
    } else if (op === "promote") {
      if (conf.learners.length === 0) return;
      id = r.pick(conf.learners);
    } else {
      const removable = conf.voters.length > 3 ? members : conf.learners;
      if (removable.length === 0) return;
      id = r.chance(0.3) ? l.id : r.pick(removable);
      if (id === l.id && conf.voters.length <= 3) return;
    }
    const change =
      op === "add-learner" ? node.addLearner(id, id) : op === "promote" ? node.promote(id) : node.remove(id);
    change.catch(() => {});
    // The driver proposes synchronously: an accepted change is the new last entry.
    const accepted = node.core.status(false).lastIndex > before.lastIndex;
    this.record(`conf ${op} ${id} via ${l.id}: ${accepted ? "proposed" : "refused"}`);
    if (!accepted) return;
    this.stats.confChanges++;
    if (op === "add-learner") {
      this.nextServer++;
      this.addServer(this.makeServer(id));
    }
  }

  private heal(): void {
    this.healed = true;
    this.healAt = this.clock.now();
    this.network.net.heal();
    this.network.conditions = { drop: 0, dup: 0, minDelay: 1, maxDelay: 20, linger: 0.01 };
    this.record("heal: network clean, every server restarted");
    for (const s of this.servers.values()) if (!s.alive && !s.retired) s.start();
  }

  // ---------------------------------------------------------------- end-of-run checks

  private checkEnd(): void {
    const bound = this.healAt + LIVENESS_TIMEOUTS * ELECTION_TICKS * TICK;
    if (this.firstAckAfterHeal === null || this.firstAckAfterHeal > bound) {
      throw new InvariantViolation(
        `liveness: no write acknowledged within ${LIVENESS_TIMEOUTS} election timeouts after healing at ${this.healAt}`,
      );
    }
    const l = this.leader();
    if (!l) throw new InvariantViolation("liveness: no leader at the end of a long healed period");
    const conf = l.core!.status(false).conf;
    for (const id of [...conf.voters, ...conf.learners]) {
      const s = this.servers.get(id)!;
      if (s.sm.index < this.history.ackedMax) {
        throw new InvariantViolation(
          `acknowledged write at ${this.history.ackedMax} not applied on ${id} (applied ${s.sm.index}) after healing`,
        );
      }
    }
  }

  // ---------------------------------------------------------------- trace

  private record(what: string | Message): void {
    const item = { at: this.clock.now(), text: what };
    if (this.trace.length < this.traceSize) this.trace.push(item);
    else {
      this.trace[this.traceAt] = item;
      this.traceAt = (this.traceAt + 1) % this.traceSize;
    }
  }

  private lastTrace(): string[] {
    return [...this.trace.slice(this.traceAt), ...this.trace.slice(0, this.traceAt)].map(
      ({ at, text }) =>
        `${at.toString().padStart(7)} ${typeof text === "string" ? text : `deliver ${fmt(text)}`}`,
    );
  }
}

function fmt(m: Message): string {
  const base = `${m.type} ${m.from}->${m.to} t${m.term}`;
  switch (m.type) {
    case "append":
      return `${base} prev=${m.prevIndex}/${m.prevTerm} n=${m.entries.length} commit=${m.commit}`;
    case "append-resp":
      return `${base} ${m.reject ? `reject ${m.index} hint=${m.hintIndex}/${m.hintTerm}` : `ok ${m.index}`}`;
    case "pre-vote":
    case "vote":
      return `${base} last=${m.lastIndex}/${m.lastTerm}${m.transfer ? " transfer" : ""}`;
    case "pre-vote-resp":
    case "vote-resp":
      return `${base} ${m.reject ? "reject" : "grant"}`;
    case "heartbeat":
      return `${base} commit=${m.commit} read=${m.read}`;
    case "read-index-resp":
      return `${base} ${m.ctx} ${m.reject ?? m.index}`;
    default:
      return base;
  }
}

/**
 * A leader's bound on uncommitted entries, from the seed rather than the PRNG for the same reason as
 * trailingLogsFor. Small enough that a tail grown under chaos replicates within the liveness bound even at
 * one entry per round trip (maxInflight 1, maxAppendBytes 1): seed 96000563's leader grew 274 entries while
 * its followers took one every few hundred milliseconds, and after healing the first new write waited
 * behind all of them for longer than ten election timeouts.
 */
function maxUncommittedFor(seed: number): number {
  return 8 + (seedHash(seed, 0x27d4eb2f, 0x85ebca6b) % 57);
}

/**
 * Entries kept behind each snapshot: none for half the seeds (every lagging follower needs a snapshot),
 * up to 40 for the rest. Derived from the seed rather than drawn from its random stream, so the draws of
 * every other choice, and the regression seeds' runs, stay as they were.
 */
function trailingLogsFor(seed: number): number {
  const h = seedHash(seed, 0x5bd1e995, 0x9e3779b1);
  return h % 2 === 0 ? 0 : 1 + ((h >>> 1) % 40);
}

/**
 * When the snapshot threshold is checked: for half the seeds on a timer of 1 to 20 ticks (as a server runs,
 * with Consul's raft_snapshot_interval), for the rest after every apply, which snapshots as often as the
 * threshold allows. Derived from the seed, as `trailingLogsFor`.
 */
function snapshotIntervalFor(seed: number): { snapshotIntervalMs?: number } {
  const h = seedHash(seed, 0x3c6ef372, 0xc2b2ae35);
  return h % 2 === 0 ? {} : { snapshotIntervalMs: (1 + ((h >>> 1) % 20)) * TICK };
}

/** An unsigned 32-bit mix of the seed; each setting has its own constants, so settings vary independently. */
function seedHash(seed: number, salt: number, multiplier: number): number {
  return Math.imul(seed ^ salt, multiplier) >>> 0;
}
