// A deterministic timing simulation of a healthy cluster on a fast network, driven as RaftNode drives the
// core (SimServer), at Cairn's timing for raft_multiplier 1: a tick of 100 ms, an election timeout drawn from
// [1 s, 1.5 s),
// a campaign round that neither won nor lost retried after [0.2 s, 0.7 s), a heartbeat every tick, PreVote
// and CheckQuorum. Time is in milliseconds. It answers the timing questions
// the chaos simulation does not: how long writes stop after a leader crashes or hands over, and whether
// event-loop stalls (of one server, or of all at once as on a starved host) cause leader changes.

import { EventQueue, Prng } from "@cairn/testkit";
import type { Entry, ReadState, Ready, SnapshotMeta } from "../../src/core/types.js";
import { type ServerHooks, SimServer } from "./server.js";
import { encodeWrite } from "./state-machine.js";

export const TICK_MS = 100;
export const ELECTION_TICKS = 10;
export const ELECTION_JITTER_TICKS = 5;
export const ELECTION_RETRY_TICKS = 2;

export interface TimingOptions {
  seed: number;
  voters: number;
  /** One-way message latency range (ms). */
  latency?: readonly [number, number];
  /** Whether a server's driver leaves its own stalls out of the leader's silence (as RaftNode does). */
  compensateStalls?: boolean;
}

type Event =
  | { k: "tick"; s: SimServer; inc: number }
  | { k: "deliver"; m: Parameters<ServerHooks["send"]>[1] }
  | { k: "written"; s: SimServer; inc: number }
  | { k: "resume"; s: SimServer; inc: number }
  | { k: "at"; fn: () => void };

export class TimingSim implements ServerHooks {
  readonly servers: SimServer[] = [];
  private readonly queue = new EventQueue<Event>();
  private readonly rng: Prng;
  now = 0;
  /** Terms in which some server became leader, with the time it did. */
  readonly leaderships: { term: number; id: string; at: number }[] = [];
  /** Times at which a leader applied the first entry of its own term (writes work again). */
  readonly termsServing = new Map<number, number>();
  private readonly latency: readonly [number, number];
  private readonly compensate: boolean;

  constructor(options: TimingOptions) {
    this.rng = new Prng(options.seed);
    this.latency = options.latency ?? [1, 5];
    this.compensate = options.compensateStalls ?? true;
    const ids = Array.from({ length: options.voters }, (_, i) => `n${i + 1}`);
    const config = {
      electionTicks: ELECTION_TICKS,
      electionJitterTicks: ELECTION_JITTER_TICKS,
      electionRetryTicks: ELECTION_RETRY_TICKS,
      heartbeatTicks: 1,
      preVote: true,
      checkQuorum: true,
      maxInflight: 64,
      maxAppendBytes: 1024 * 1024,
      leaseDriftTicks: 2,
    };
    for (const id of ids) {
      const own = this.rng.fork();
      const s = new SimServer(
        id,
        config,
        TICK_MS,
        () => own.next(),
        { voters: ids, learners: [] },
        1e9,
        this,
      );
      this.servers.push(s);
      s.start();
      this.queue.push(this.rng.int(1, TICK_MS), { k: "tick", s, inc: s.incarnation });
    }
  }

  /** Runs events until `until` (ms). */
  runUntil(until: number): void {
    for (;;) {
      const ev = this.queue.pop();
      if (!ev) break;
      if (ev.at > until) {
        this.queue.push(ev.at, ev.item);
        break;
      }
      this.now = ev.at;
      this.handle(ev.item);
    }
    this.now = until;
  }

  at(time: number, fn: () => void): void {
    this.queue.push(time, { k: "at", fn });
  }

  leader(): SimServer | undefined {
    let best: SimServer | undefined;
    for (const s of this.servers) {
      const st = s.core?.status(false);
      if (st?.role === "leader" && (!best || st.term > best.core!.status(false).term)) best = s;
    }
    return best;
  }

  /** Stalls `s` for `ms`: nothing of it runs meanwhile (a blocked or starved event loop, a SIGSTOP). */
  stall(s: SimServer, ms: number): void {
    if (!s.core || s.pausedUntil > this.now) return;
    s.pausedUntil = this.now + ms;
    s.missedTicks = 0;
    this.queue.push(s.pausedUntil, { k: "resume", s, inc: s.incarnation });
  }

  /**
   * `s` crashes. `refusedAfterMs`: the survivors' drivers find its address refusing connections that much
   * later (a process that exited; a host that died or was cut off gives no such sign).
   */
  crash(s: SimServer, refusedAfterMs?: number): void {
    s.crash();
    if (refusedAfterMs === undefined) return;
    this.at(this.now + refusedAfterMs, () => {
      if (s.alive) return;
      for (const o of this.servers) {
        if (o.core && o.pausedUntil <= this.now && o.core.leaderGone(s.id)) this.touched(o);
      }
    });
  }

  /** A write proposed at the leader, if there is one. */
  write(): void {
    const l = this.leader();
    if (!l?.core) return;
    l.core.propose(encodeWrite(this.rng.int(1, 1e9)));
    this.touched(l);
  }

  /** The planned stop of a leader: transfer to the most up-to-date voter, then stop once it leads. */
  transferThenStop(l: SimServer): void {
    const st = l.core!.status(false);
    const others = st.conf.voters.filter((v) => v !== l.id);
    others.sort((a, b) => (st.progress?.[b]?.match ?? 0) - (st.progress?.[a]?.match ?? 0));
    const to = others[0]!;
    const rejected = l.core!.transferLeadership(to);
    if (rejected) throw new Error(`transfer refused: ${rejected.error}`);
    this.touched(l);
    const check = () => {
      const target = this.servers.find((s) => s.id === to)!;
      if (target.core?.status(false).role === "leader") l.crash();
      else this.at(this.now + 5, check);
    };
    this.at(this.now + 5, check);
  }

  private handle(ev: Event): void {
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
        const to = this.servers.find((s) => s.id === ev.m.to);
        if (!to?.core) return;
        if (to.pausedUntil > this.now) {
          this.queue.push(to.pausedUntil, ev);
          return;
        }
        to.core.step(ev.m);
        this.touched(to);
        return;
      }
      case "written": {
        const s = ev.s;
        if (s.incarnation !== ev.inc || !s.inflight) return;
        if (s.pausedUntil > this.now) {
          this.queue.push(s.pausedUntil, ev);
          return;
        }
        s.completeWrite(null);
        this.touched(s);
        return;
      }
      case "resume": {
        const s = ev.s;
        if (s.incarnation !== ev.inc || !s.core) return;
        s.catchUp(this.compensate);
        this.touched(s);
        return;
      }
      case "at":
        ev.fn();
        return;
    }
  }

  private touched(s: SimServer): void {
    const st = s.core?.status(false);
    if (st?.role === "leader" && !this.leaderships.some((l) => l.term === st.term)) {
      this.leaderships.push({ term: st.term, id: s.id, at: this.now });
    }
    if (s.drain()) this.queue.push(this.now + this.rng.int(1, 3), { k: "written", s, inc: s.incarnation });
  }

  send(_from: SimServer, m: Parameters<ServerHooks["send"]>[1]): void {
    this.queue.push(this.now + this.rng.int(this.latency[0], this.latency[1]), { k: "deliver", m });
  }

  persisted(_s: SimServer, _r: Ready, _prev: number): void {}

  applied(s: SimServer, e: Entry): void {
    const st = s.core?.status(false);
    if (st?.role === "leader" && e.term === st.term && !this.termsServing.has(e.term))
      this.termsServing.set(e.term, this.now);
  }

  snapshotInstalled(_s: SimServer, _meta: SnapshotMeta): void {}

  readState(_s: SimServer, _rs: ReadState): void {}
}
