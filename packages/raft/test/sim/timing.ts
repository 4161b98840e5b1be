// A deterministic timing simulation of a healthy cluster on a fast network: the real driver (SimServer) at
// Cairn's timing for raft_multiplier 1: a tick of 100 ms, an election timeout drawn from [1 s, 1.5 s), a
// campaign round that neither won nor lost retried after [0.2 s, 0.7 s), a heartbeat every tick, PreVote and
// CheckQuorum. Time is in milliseconds. It answers the timing questions the chaos simulation does not: how
// long writes stop after a leader crashes or hands over, and whether event-loop stalls (of one server, or
// of all at once as on a starved host) cause leader changes.

import type { Entry } from "../../src/core/types.js";
import { type Owner, SimLoop } from "./loop.js";
import { Prng } from "./prng.js";
import { SimNetwork } from "./sim-network.js";
import { type ServerWorld, SimServer } from "./sim-server.js";
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
  /**
   * Whether a server's driver leaves its own stalls out of the leader's silence (as RaftNode does). Off, a
   * stalled server's clock is held back by the stall and its core ticked live for it instead: a driver that
   * takes its own stall for the leader's silence.
   */
  compensateStalls?: boolean;
}

export class TimingSim implements ServerWorld {
  readonly servers: SimServer[] = [];
  readonly loop = new SimLoop();
  readonly network: SimNetwork;
  private readonly rng: Prng;
  /** Terms in which some server became leader, with the time it did. */
  readonly leaderships: { term: number; id: string; at: number }[] = [];
  /** Times at which a leader applied the first entry of its own term (writes work again). */
  readonly termsServing = new Map<number, number>();
  private readonly compensate: boolean;
  private failure: string | undefined;
  private writeSeq = 0;

  constructor(options: TimingOptions) {
    this.rng = new Prng(options.seed);
    this.compensate = options.compensateStalls ?? true;
    this.network = new SimNetwork(this.loop, this.rng.fork(), TICK_MS);
    const [minDelay, maxDelay] = options.latency ?? [1, 5];
    this.network.conditions = { drop: 0, dup: 0, minDelay, maxDelay, linger: 0 };
    const ids = Array.from({ length: options.voters }, (_, i) => `n${i + 1}`);
    const peers = Object.fromEntries(ids.map((id) => [id, id]));
    for (const id of ids) {
      const own = this.rng.fork();
      const s = new SimServer(
        id,
        {
          tickMs: TICK_MS,
          electionTicks: ELECTION_TICKS,
          electionJitterTicks: ELECTION_JITTER_TICKS,
          electionRetryTicks: ELECTION_RETRY_TICKS,
          heartbeatTicks: 1,
          maxInflight: 64,
          maxAppendBytes: 1024 * 1024,
          leaseDriftTicks: 2,
          snapshotThreshold: 1e9,
        },
        () => peers,
        () => own.next(),
        this,
        ids,
      );
      this.servers.push(s);
      this.network.add(s);
    }
    // Processes start at different moments, so their tick timers run out of phase as real ones do.
    for (const s of this.servers) this.loop.at(this.rng.int(1, TICK_MS), null, () => s.start());
  }

  get now(): number {
    return this.loop.now;
  }

  /** Runs events until `until` (ms). */
  runUntil(until: number): Promise<void> {
    return this.loop.runUntil(until, () => this.afterEvent());
  }

  at(time: number, fn: () => void): void {
    this.loop.at(time, null, fn);
  }

  leader(): SimServer | undefined {
    let best: SimServer | undefined;
    let bestTerm = -1;
    for (const s of this.servers) {
      const st = s.core?.status(false);
      if (st?.role === "leader" && st.term > bestTerm) {
        best = s;
        bestTerm = st.term;
      }
    }
    return best;
  }

  /** Stalls `s` for `ms`: nothing of it runs meanwhile (a blocked or starved event loop, a SIGSTOP). */
  stall(s: SimServer, ms: number): void {
    if (!s.alive || s.pausedUntil > this.now) return;
    s.pausedUntil = this.now + ms;
    if (this.compensate) return;
    // Runs before anything of `s` that waited for the stall to end (it was scheduled first).
    this.at(s.pausedUntil, () => {
      if (!s.core) return;
      s.lag += ms;
      for (let i = Math.floor(ms / TICK_MS); i > 0; i--) s.core.tick();
    });
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
        const p = o.process;
        if (p) this.loop.at(this.now, p.owner, () => p.inbound.onRefused(s.id));
      }
    });
  }

  /** A write proposed at the leader, if there is one. */
  write(): void {
    const l = this.leader();
    if (!l || l.pausedUntil > this.now) return;
    l.node!.propose(encodeWrite(++this.writeSeq)).catch(() => {});
  }

  /** The planned stop of a leader: transfer to the most up-to-date voter, then stop once it leads. */
  transferThenStop(l: SimServer): void {
    const st = l.core!.status();
    const others = st.conf.voters.filter((v) => v !== l.id);
    others.sort((a, b) => (st.progress?.[b]?.match ?? 0) - (st.progress?.[a]?.match ?? 0));
    const to = others[0]!;
    l.node!.transferLeadership(to).catch(() => {});
    if (l.core!.status(false).leadTransferee !== to) throw new Error(`transfer to ${to} refused`);
    const check = () => {
      const target = this.servers.find((s) => s.id === to)!;
      if (target.role() === "leader") l.crash();
      else this.at(this.now + 5, check);
    };
    this.at(this.now + 5, check);
  }

  private afterEvent(): void {
    if (this.failure) throw new Error(this.failure);
    for (const s of this.servers) {
      const st = s.core?.status(false);
      if (st?.role !== "leader") continue;
      if (!this.leaderships.some((l) => l.term === st.term)) {
        this.leaderships.push({ term: st.term, id: s.id, at: this.now });
      }
      if (!this.termsServing.has(st.term) && s.core!.entryAt(s.node!.appliedIndex)?.term === st.term) {
        this.termsServing.set(st.term, this.now);
      }
    }
  }

  // ---------------------------------------------------------------- the servers' world

  sync(_s: SimServer, owner: Owner, land: () => void): Promise<void> {
    return new Promise((resolve) =>
      this.loop.at(this.now + this.rng.int(1, 3), owner, () => {
        land();
        resolve();
      }),
    );
  }

  persisted(_s: SimServer, _entries: Entry[], _prevTerm: number): void {}

  applied(): void {}

  restored(): void {}

  fail(message: string): void {
    this.failure ??= message;
  }
}
