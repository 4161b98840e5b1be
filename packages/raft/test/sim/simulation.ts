import { EventQueue, Prng } from "@cairn/testkit";
import { decodeConfEntry } from "../../src/core/conf.js";
import type { Entry, Message, ReadState, Ready, SnapshotMeta } from "../../src/core/types.js";
import { InvariantViolation, SafetyChecker } from "./checker.js";
import { ClientHistory } from "./history.js";
import { type ServerHooks, SimServer } from "./server.js";
import { encodeWrite, type SmState } from "./state-machine.js";

/** Virtual time units per tick (each server's clock is a few percent off, see tickPeriod). */
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

interface Stream {
  from: SimServer;
  fromInc: number;
  to: SimServer;
  toInc: number;
  msg: Extract<Message, { type: "snapshot" }>;
  /** The snapshot file's content, captured when the stream opened. */
  sm: SmState;
  chunks: number;
  received: number;
  failed: boolean;
}

type SimEvent =
  | { k: "tick"; s: SimServer; inc: number }
  | { k: "deliver"; m: Message }
  | { k: "written"; s: SimServer; inc: number }
  | { k: "chunk"; stream: Stream }
  | { k: "snapshot-report"; stream: Stream; ok: boolean }
  | { k: "restart"; s: SimServer }
  | { k: "resume"; s: SimServer; inc: number }
  | { k: "fault" }
  | { k: "client" }
  | { k: "heal" }
  | { k: "refused"; peer: string };

/**
 * One deterministic run of a simulated cluster. Everything - configuration, fault mix, timing, network
 * behaviour, client traffic - derives from the seed, so a seed replays exactly.
 *
 * Virtual time advances from event to event (ticks, deliveries, fsync completions, snapshot chunks,
 * faults, client operations). Each server is driven exactly as the real driver does it (SimServer).
 * During the chaos phase the network drops, duplicates, delays and reorders messages and is partitioned
 * (both ways or one way), servers crash (also as a write finishes: just before it lands, with a leader's
 * appends for it already sent, or just after, before what it promised is sent), restart from what
 * they persisted, stall (and catch up on ticks), membership changes and leadership transfers run, and
 * logs are compacted so lagging servers need snapshots. Then everything heals and the run must
 * converge. SafetyChecker and ClientHistory check after every event; checkEnd checks liveness.
 */
export class Simulation implements ServerHooks {
  private readonly rng: Prng;
  private readonly queue = new EventQueue<SimEvent>();
  private readonly servers = new Map<string, SimServer>();
  private readonly checker = new SafetyChecker();
  /** Ring buffer of recent happenings; messages are formatted only when a failure prints the trace. */
  private readonly trace: { at: number; text: string | Message }[] = [];
  private traceAt = 0;
  private now = 0;
  private healed = false;
  private healAt = 0;
  private nextServer = 1;

  private readonly cut = new Set<string>();
  private drop = 0;
  private dup = 0;
  private maxDelay = 50;
  private readonly fsyncMax: number;
  /** Chance that a server dies as a write finishes: just before it lands, or just after (before sending). */
  private readonly fsyncCrash: number;

  private readonly history = new ClientHistory();
  private firstAckAfterHeal: number | null = null;

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

  constructor(private readonly opts: SimOptions) {
    this.rng = new Prng(opts.seed);
    const r = this.rng;
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
    const config = {
      electionTicks: ELECTION_TICKS,
      heartbeatTicks: HEARTBEAT_TICKS,
      preVote: r.chance(0.7),
      checkQuorum: r.chance(0.7),
      maxInflight: r.int(1, 8),
      maxAppendBytes: r.pick([1, 8, 64, 1024]),
      leaseDriftTicks: 2,
    };
    const compactEvery = r.int(3, 40);
    this.protectedFromRemoved = config.preVote || config.checkQuorum;
    this.record(`seed ${opts.seed}: ${voters} voters ${JSON.stringify(config)} compactEvery=${compactEvery}`);
    this.makeServer = (id, bootstrap) => {
      const own = r.fork();
      return new SimServer(id, config, TICK + r.int(-2, 2), () => own.next(), bootstrap, compactEvery, this);
    };
    for (const id of ids) this.addServer(this.makeServer(id, { voters: ids, learners: [] }));
    this.queue.push(r.int(0, 300), { k: "fault" });
    this.queue.push(r.int(0, 50), { k: "client" });
    this.queue.push(this.chaosEnd, { k: "heal" });
  }

  private readonly protectedFromRemoved: boolean;
  private readonly makeServer: (
    id: string,
    bootstrap?: { voters: string[]; learners: string[] },
  ) => SimServer;

  run(): SimResult {
    try {
      for (;;) {
        const ev = this.queue.pop();
        if (!ev || ev.at > this.end) break;
        this.now = ev.at;
        this.stats.events++;
        this.handle(ev.item);
      }
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
    return { ...this.stats, writesAcked: h.acked, readsChecked: h.readsChecked, leaseReads: h.leaseReads };
  }

  // ---------------------------------------------------------------- events

  private handle(ev: SimEvent): void {
    switch (ev.k) {
      case "tick": {
        const s = ev.s;
        if (s.incarnation !== ev.inc || !s.core) return;
        this.queue.push(this.now + s.tickPeriod, ev);
        if (s.pausedUntil > this.now) {
          s.missedTicks++;
          return;
        }
        s.core.tick();
        this.touched(s);
        return;
      }
      case "deliver": {
        const m = ev.m;
        const to = this.servers.get(m.to);
        if (!to?.core || this.cut.has(`${m.from}>${m.to}`)) return;
        if (this.deferWhilePaused(to, ev)) return;
        this.record(m);
        to.core.step(m);
        this.touched(to);
        return;
      }
      case "written": {
        const s = ev.s;
        if (s.incarnation !== ev.inc || !s.inflight) return;
        if (this.deferWhilePaused(s, ev)) return;
        const crash =
          !this.healed && this.rng.chance(this.fsyncCrash)
            ? this.rng.pick(["before", "after"] as const)
            : null;
        // "before": whatever the Ready already sent (a leader's appends) is out, its own write is lost.
        if (crash) this.record(`${s.id} crashes right ${crash} its write lands`);
        s.completeWrite(crash);
        if (crash) this.afterCrash(s);
        else this.touched(s);
        return;
      }
      case "chunk":
        if (this.deferWhilePaused(ev.stream.to, ev)) return;
        this.deliverChunk(ev.stream);
        return;
      case "resume": {
        const s = ev.s;
        if (s.incarnation !== ev.inc || !s.core) return;
        // A correct driver catches up on the ticks a stall swallowed (from its monotonic clock)
        // before it handles anything that queued up meanwhile.
        this.record(`resume ${s.id} after ${s.missedTicks} missed ticks`);
        s.catchUp();
        this.touched(s);
        return;
      }
      case "snapshot-report": {
        const { stream } = ev;
        if (stream.from.incarnation !== stream.fromInc || !stream.from.core) return;
        this.record(`${stream.from.id}: snapshot to ${stream.to.id} ${ev.ok ? "done" : "failed"}`);
        stream.from.core.reportSnapshot(stream.to.id, ev.ok);
        this.touched(stream.from);
        return;
      }
      case "restart":
        if (ev.s.alive || ev.s.retired) return;
        this.record(`restart ${ev.s.id}`);
        this.startServer(ev.s);
        return;
      case "fault":
        if (this.healed) return;
        this.fault();
        this.queue.push(this.now + this.rng.int(20, 400), ev);
        return;
      case "client":
        // The last stretch is quiet so every acknowledged write can reach every member.
        if (this.now > this.end - 40 * TICK) return;
        this.client();
        this.queue.push(this.now + this.rng.int(5, 60), ev);
        return;
      case "heal":
        this.heal();
        return;
      case "refused": {
        const gone = this.servers.get(ev.peer);
        if (gone?.alive) return; // restarted meanwhile: its address accepts again
        for (const s of this.servers.values()) {
          if (!s.core || s.pausedUntil > this.now) continue;
          if (s.core.leaderGone(ev.peer)) {
            this.record(`${s.id}: ${ev.peer} refuses connections`);
            this.touched(s);
          }
        }
        return;
      }
    }
  }

  /** A stalled process handles nothing until it resumes; what arrived meanwhile waits for it. */
  private deferWhilePaused(s: SimServer, ev: SimEvent): boolean {
    if (s.pausedUntil <= this.now) return false;
    this.queue.push(s.pausedUntil, ev);
    return true;
  }

  /** After anything changed `s`: check invariants, then let its driver carry out what the core has for it. */
  private touched(s: SimServer): void {
    this.checker.observe(s, this.servers.values());
    const st = s.core?.status(false);
    if (st?.role === "leader" && !this.leaderTerms.has(st.term)) {
      this.leaderTerms.add(st.term);
      this.stats.leaders++;
      this.record(`${s.id} is leader of term ${st.term}`);
    }
    if (s.drain()) {
      this.queue.push(this.now + this.rng.int(0, this.fsyncMax), { k: "written", s, inc: s.incarnation });
    }
  }

  private readonly leaderTerms = new Set<number>();

  private addServer(s: SimServer): void {
    this.servers.set(s.id, s);
    this.startServer(s);
  }

  private startServer(s: SimServer): void {
    s.start();
    this.queue.push(this.now + this.rng.int(1, s.tickPeriod), { k: "tick", s, inc: s.incarnation });
    this.touched(s);
  }

  private afterCrash(s: SimServer): void {
    this.stats.crashes++;
    // Often the survivors find out at once that the process is gone (its address refuses connections, as
    // RaftNode is told) and those that followed it campaign without waiting out its silence.
    if (this.rng.chance(0.5)) {
      const at = this.now + this.rng.int(1, 100);
      this.queue.push(at, {
        k: "refused",
        peer: s.id,
      });
    }
    this.history.crashed(s);
    this.queue.push(this.now + this.rng.int(TICK, this.rng.pick([1, 3, 15, 40]) * TICK), { k: "restart", s });
  }

  // ---------------------------------------------------------------- network

  private setNetwork(): void {
    const r = this.rng;
    this.drop = r.pick([0, 0, 0.01, 0.05, 0.15, 0.3]);
    this.dup = r.pick([0, 0, 0.02, 0.1]);
    this.maxDelay = r.pick([5, 20, 60, 150, 400]);
  }

  private delay(): number {
    // Now and then a message lingers for many election timeouts, to arrive stale and out of order.
    return this.rng.chance(0.01) ? this.rng.int(TICK, 40 * TICK) : this.rng.int(1, this.maxDelay);
  }

  send(from: SimServer, m: Message): void {
    this.checker.sent(from, m);
    if (m.type === "snapshot") {
      this.startStream(from, m);
      return;
    }
    if (this.cut.has(`${m.from}>${m.to}`) || this.rng.chance(this.drop)) return;
    this.queue.push(this.now + this.delay(), { k: "deliver", m });
    if (this.rng.chance(this.dup)) this.queue.push(this.now + this.delay(), { k: "deliver", m });
  }

  /** The snapshot file travels as chunks, each exposed to loss and partitions; the core hears of it only once all arrived. */
  private startStream(from: SimServer, msg: Extract<Message, { type: "snapshot" }>): void {
    const to = this.servers.get(msg.to)!;
    const snap = from.durable.snapshot;
    const stream: Stream = {
      from,
      fromInc: from.incarnation,
      to,
      toInc: to.incarnation,
      msg,
      sm: snap ? { ...snap.sm } : { index: 0, hash: 0 },
      chunks: this.rng.int(1, 4),
      received: 0,
      failed: false,
    };
    if (!snap || snap.meta.index !== msg.snapshot.index) {
      this.record(`${from.id}: no snapshot file for ${msg.snapshot.index}`);
      this.queue.push(this.now + TICK, { k: "snapshot-report", stream, ok: false });
      return;
    }
    this.record(
      `${from.id}: streaming snapshot ${msg.snapshot.index} to ${to.id} in ${stream.chunks} chunks`,
    );
    this.queue.push(this.now + this.delay(), { k: "chunk", stream });
  }

  private deliverChunk(st: Stream): void {
    if (st.failed) return;
    const lost =
      !st.to.core ||
      st.to.incarnation !== st.toInc ||
      this.cut.has(`${st.from.id}>${st.to.id}`) ||
      this.rng.chance(this.drop);
    if (lost) {
      st.failed = true;
      this.queue.push(this.now + 5 * TICK, { k: "snapshot-report", stream: st, ok: false });
      return;
    }
    if (++st.received < st.chunks) {
      this.queue.push(this.now + this.rng.int(1, this.maxDelay), { k: "chunk", stream: st });
      return;
    }
    const meta: SnapshotMeta = st.msg.snapshot;
    st.to.receivedSnapshots.set(`${meta.index}:${meta.term}`, { ...st.sm });
    this.record(`${st.to.id}: snapshot ${meta.index} fully received`);
    st.to.core!.step(st.msg);
    this.touched(st.to);
    this.queue.push(this.now + this.rng.int(1, this.maxDelay), {
      k: "snapshot-report",
      stream: st,
      ok: true,
    });
  }

  // ---------------------------------------------------------------- driver hooks

  persisted(s: SimServer, r: Ready, prevTermOfFirst: number): void {
    this.checker.persisted(s, r, prevTermOfFirst);
  }

  applied(s: SimServer, e: Entry): void {
    this.stats.applied++;
    if (e.kind === "conf" && !this.protectedFromRemoved) this.retireRemoved(e);
    this.checker.applied(s, e);
    if (this.history.applied(s, e) && this.healed && this.firstAckAfterHeal === null) {
      this.firstAckAfterHeal = this.now;
    }
  }

  /**
   * Without PreVote and CheckQuorum nothing stops a removed server that never learned of its removal
   * from disrupting the cluster forever (Raft dissertation 4.2.3), so there the simulated operator
   * shuts it down once the removal commits. With either, removed servers stay up and must be harmless.
   */
  private retireRemoved(e: Entry): void {
    const { change } = decodeConfEntry(e.data);
    if (change?.op !== "remove") return;
    const s = this.servers.get(change.node);
    if (!s || s.retired) return;
    s.retired = true;
    s.crash();
    this.record(`${s.id} removed and shut down`);
  }

  snapshotInstalled(s: SimServer, meta: SnapshotMeta): void {
    this.stats.snapshotsInstalled++;
    this.record(`${s.id}: installed snapshot ${meta.index}`);
    this.checker.snapshotInstalled(s, meta);
  }

  readState(s: SimServer, rs: ReadState): void {
    this.history.readState(s, rs);
  }

  // ---------------------------------------------------------------- clients and faults

  private liveServers(): SimServer[] {
    return [...this.servers.values()].filter((s) => s.alive && s.pausedUntil <= this.now);
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
    const live = this.liveServers();
    if (live.length === 0) return;
    const r = this.rng;
    // Clients favour servers that claim leadership (stale ones too: that grows divergent suffixes).
    const leaders = live.filter((x) => x.core!.status(false).role === "leader");
    const s = leaders.length > 0 && r.chance(0.7) ? r.pick(leaders) : r.pick(live);
    const core = s.core!;
    if (r.chance(0.6)) {
      const id = this.history.nextWriteId();
      const res = core.propose(encodeWrite(id));
      if ("index" in res) this.history.writeAccepted(s, id, res.index, res.term);
    } else {
      const lease = r.chance(0.5);
      core.readIndex(this.history.readInvoked(s, this.now, lease), { lease });
    }
    this.touched(s);
  }

  /**
   * Swarm testing: each seed weighs the fault kinds differently (some not at all), so runs range from
   * crash-heavy to partition-heavy instead of all being the same uniform mix.
   */
  private readonly faultWeights: number[];

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
    const r = this.rng;
    const all = [...this.servers.values()];
    const ids = all.map((s) => s.id);
    const choice = this.pickFault();
    switch (choice) {
      case 0: {
        const side = new Set(ids.filter(() => r.chance(0.5)));
        this.cut.clear();
        for (const a of ids) for (const b of ids) if (side.has(a) !== side.has(b)) this.cut.add(`${a}>${b}`);
        this.record(`partition {${[...side].join(",")}} | rest`);
        return;
      }
      case 1: {
        const victim = r.chance(0.6) ? (this.leader()?.id ?? r.pick(ids)) : r.pick(ids);
        for (const o of ids) {
          if (o === victim) continue;
          this.cut.add(`${victim}>${o}`);
          this.cut.add(`${o}>${victim}`);
        }
        this.record(`isolate ${victim}`);
        return;
      }
      case 2: {
        // Mostly leader -> follower, so that follower falls behind and later runs in an election.
        const a = r.chance(0.6) ? (this.leader()?.id ?? r.pick(ids)) : r.pick(ids);
        const b = r.pick(ids);
        if (a === b) return;
        this.cut.add(`${a}>${b}`);
        this.record(`cut one way ${a}>${b}`);
        return;
      }
      case 3:
      case 4:
        this.cut.clear();
        this.record("network healed");
        return;
      case 5: {
        const live = this.liveServers();
        if (live.length === 0) return;
        const s = r.chance(0.5) ? (this.leader() ?? r.pick(live)) : r.pick(live);
        this.record(`crash ${s.id}`);
        s.crash();
        this.afterCrash(s);
        return;
      }
      case 6:
        this.setNetwork();
        this.record(`network drop=${this.drop} dup=${this.dup} maxDelay=${this.maxDelay}`);
        return;
      case 7:
      case 8:
        this.confChange();
        return;
      case 9: {
        const l = this.leader();
        if (!l) return;
        const to = r.pick(l.core!.status().conf.voters);
        const res = l.core!.transferLeadership(to);
        this.record(`transfer ${l.id} -> ${to}: ${res ? res.error : "started"}`);
        if (!res) this.stats.transfers++;
        this.touched(l);
        return;
      }
      case 10: {
        const live = this.liveServers();
        if (live.length === 0) return;
        const s = r.chance(0.5) ? (this.leader() ?? r.pick(live)) : r.pick(live);
        if (s.pausedUntil > this.now) return;
        s.pausedUntil = this.now + r.int(1, 25) * TICK;
        s.missedTicks = 0;
        this.queue.push(s.pausedUntil, { k: "resume", s, inc: s.incarnation });
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
    if (!l) return;
    const core = l.core!;
    const conf = core.status().conf;
    const members = [...conf.voters, ...conf.learners];
    const op = r.pick(["add-learner", "promote", "remove"] as const);
    let node: string;
    if (op === "add-learner") {
      if (members.length >= 6) return;
      node = `n${this.nextServer}`;
    } else if (op === "promote") {
      if (conf.learners.length === 0) return;
      node = r.pick(conf.learners);
    } else {
      const removable = conf.voters.length > 3 ? members : conf.learners;
      if (removable.length === 0) return;
      node = r.chance(0.3) ? l.id : r.pick(removable);
      if (node === l.id && conf.voters.length <= 3) return;
    }
    const res = core.proposeConfChange({ op, node });
    this.record(`conf ${op} ${node} via ${l.id}: ${"index" in res ? `index ${res.index}` : res.error}`);
    if ("index" in res) {
      this.stats.confChanges++;
      if (op === "add-learner") {
        this.nextServer++;
        this.addServer(this.makeServer(node));
      }
    }
    this.touched(l);
  }

  private heal(): void {
    this.healed = true;
    this.healAt = this.now;
    this.cut.clear();
    this.drop = 0;
    this.dup = 0;
    this.maxDelay = 20;
    this.record("heal: network clean, every server restarted");
    for (const s of this.servers.values()) if (!s.alive && !s.retired) this.startServer(s);
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
    const conf = l.core!.status().conf;
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
    const item = { at: this.now, text: what };
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
