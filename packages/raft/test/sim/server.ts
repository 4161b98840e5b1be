import { RaftCore } from "../../src/core/raft.js";
import type {
  ConfState,
  Entry,
  HardState,
  Message,
  RaftConfig,
  ReadState,
  Ready,
  SnapshotMeta,
} from "../../src/core/types.js";
import { entryHash, type SmState } from "./state-machine.js";

/** What survives a crash: exactly what a Ready persisted before the crash. */
export interface DurableState {
  hard: HardState;
  snapshot: { meta: SnapshotMeta; sm: SmState } | null;
  entries: Entry[];
}

/** What the simulated driver reports to the simulation (network, checker, clients). */
export interface ServerHooks {
  send(from: SimServer, m: Message): void;
  persisted(server: SimServer, r: Ready, prevTermOfFirst: number): void;
  applied(server: SimServer, e: Entry): void;
  snapshotInstalled(server: SimServer, meta: SnapshotMeta): void;
  readState(server: SimServer, rs: ReadState): void;
}

/**
 * One simulated server playing the driver role exactly as src/node.ts will: take a Ready, persist it
 * (the fsync boundary), then send its messages, then apply its committed entries, then advance.
 */
export class SimServer {
  core: RaftCore | null = null;
  durable: DurableState = { hard: { term: 0, vote: null, commit: 0 }, snapshot: null, entries: [] };
  sm: SmState = { index: 0, hash: 0 };
  /** Bumped at every start: events scheduled for an older incarnation are void. */
  incarnation = 0;
  /** A Ready taken from the core whose fsync has not finished yet. */
  inflight: Ready | null = null;
  /** Shut down for good (removed from the cluster). */
  retired = false;
  /** Simulated process stall (GC pause, SIGSTOP): nothing runs before this time. */
  pausedUntil = 0;
  /** Ticks that fell due during the stall. */
  missedTicks = 0;
  /** Snapshot state machines fully streamed in, by "index:term". */
  readonly receivedSnapshots = new Map<string, SmState>();

  constructor(
    readonly id: string,
    private readonly config: Omit<RaftConfig, "id" | "random">,
    readonly tickPeriod: number,
    private readonly random: () => number,
    private readonly bootstrap: ConfState | undefined,
    private readonly compactEvery: number,
    private readonly hooks: ServerHooks,
  ) {}

  get alive(): boolean {
    return this.core !== null;
  }

  start(): void {
    const d = this.durable;
    const durableLast = d.entries[d.entries.length - 1]?.index ?? d.snapshot?.meta.index ?? 0;
    if (d.hard.commit > durableLast) {
      throw new Error(`${this.id}: durable commit ${d.hard.commit} beyond the durable log (${durableLast})`);
    }
    this.incarnation++;
    this.inflight = null;
    this.receivedSnapshots.clear();
    this.sm = d.snapshot ? { ...d.snapshot.sm } : { index: 0, hash: 0 };
    this.core = new RaftCore(
      { ...this.config, id: this.id, random: this.random },
      { hardState: { ...d.hard }, snapshot: d.snapshot?.meta ?? null, entries: [...d.entries] },
      this.bootstrap,
    );
  }

  crash(): void {
    this.core = null;
    this.pausedUntil = 0;
    this.inflight = null;
  }

  /** Take the next Ready if the previous one is done; the caller schedules its completion. */
  takeReady(): Ready | null {
    if (!this.core || this.inflight || !this.core.hasReady()) return null;
    this.inflight = this.core.ready();
    return this.inflight;
  }

  /** The fsync of the in-flight Ready finished: persist it, then (unless crashing right here) carry it out. */
  completeReady(crashAfterPersist: boolean): void {
    const r = this.inflight;
    const core = this.core;
    if (!r || !core) return;
    this.inflight = null;
    this.persist(r);
    if (crashAfterPersist) {
      this.crash();
      return;
    }
    for (const m of r.messages) this.hooks.send(this, m);
    if (r.snapshot) {
      const sm = this.receivedSnapshots.get(`${r.snapshot.index}:${r.snapshot.term}`);
      if (!sm) throw new Error(`${this.id}: snapshot ${r.snapshot.index} installed without its data`);
      this.sm = { ...sm };
      this.hooks.snapshotInstalled(this, r.snapshot);
    }
    for (const e of r.committed) {
      if (e.index !== this.sm.index + 1) {
        throw new Error(`${this.id}: applying ${e.index} after ${this.sm.index} (gap or repeat)`);
      }
      this.sm = { index: e.index, hash: entryHash(this.sm.hash, e) };
      this.hooks.applied(this, e);
    }
    for (const rs of r.readStates) this.hooks.readState(this, rs);
    core.advance(r);
    this.maybeCompact(core);
  }

  private persist(r: Ready): void {
    const d = this.durable;
    if (r.snapshot) {
      const sm = this.receivedSnapshots.get(`${r.snapshot.index}:${r.snapshot.term}`)!;
      d.snapshot = { meta: r.snapshot, sm: { ...sm } };
      d.entries = [];
    }
    const first = r.entries[0];
    let prevTermOfFirst = -1;
    if (first) {
      const offset = d.snapshot?.meta.index ?? 0;
      d.entries.length = Math.max(0, first.index - offset - 1);
      if (d.entries.length !== first.index - offset - 1) {
        throw new Error(
          `${this.id}: persisting ${first.index} leaves a gap after ${offset + d.entries.length}`,
        );
      }
      const prev = d.entries[d.entries.length - 1];
      prevTermOfFirst = prev ? prev.term : (d.snapshot?.meta.term ?? 0);
      for (const e of r.entries) d.entries.push(e);
    }
    if (r.hardState) d.hard = r.hardState;
    this.hooks.persisted(this, r, prevTermOfFirst);
  }

  private maybeCompact(core: RaftCore): void {
    const d = this.durable;
    const offset = d.snapshot?.meta.index ?? 0;
    if (this.sm.index - offset < this.compactEvery) return;
    const meta = core.compact(this.sm.index);
    d.snapshot = { meta, sm: { ...this.sm } };
    d.entries = d.entries.filter((e) => e.index > meta.index);
  }
}
