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

/** As RaftNode: gaps of up to this many tick periods are timer lateness, not a stall. */
const STALL_SLACK_TICKS = 2;

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
 * One simulated server playing the driver role exactly as src/node.ts does (see Ready in core/types.ts):
 * what a Ready allows at once - sending, applying committed entries, read answers - happens as soon as it
 * is taken, even while a write is in flight; a Ready's write goes to the simulated disk, and only once it
 * is durable are its dependent messages sent and the core told (persisted). The simulation decides when
 * each write finishes, and may crash the server before or after it lands.
 */
export class SimServer {
  core: RaftCore | null = null;
  durable: DurableState = { hard: { term: 0, vote: null, commit: 0 }, snapshot: null, entries: [] };
  sm: SmState = { index: 0, hash: 0 };
  /** Bumped at every start: events scheduled for an older incarnation are void. */
  incarnation = 0;
  /** A Ready whose write has not finished yet (at most one: the core holds back the next). */
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

  /**
   * After a stall, ticks the core for what it missed as RaftNode does: all but the last STALL_SLACK_TICKS
   * as stalled ticks (they do not count as leader silence), the rest as live ones. `compensate: false`
   * ticks them all as live (a driver that takes its own stall for the leader's silence).
   */
  catchUp(compensate = true): void {
    const core = this.core;
    if (!core) return;
    const stalled = compensate ? Math.max(0, this.missedTicks - STALL_SLACK_TICKS) : 0;
    for (let i = 0; i < this.missedTicks; i++) core.tick(i < stalled);
    this.missedTicks = 0;
  }

  crash(): void {
    this.core = null;
    this.pausedUntil = 0;
    this.inflight = null;
  }

  /**
   * Carry out every Ready the core has now. Returns whether one of them started a write (the caller
   * schedules its completion).
   */
  drain(): boolean {
    const core = this.core;
    let started = false;
    while (core && this.core === core && core.hasReady()) {
      const r = core.ready();
      for (const m of r.messages) this.hooks.send(this, m);
      for (const e of r.committed) {
        if (this.core !== core) return started; // applying its own removal shut it down
        if (e.index !== this.sm.index + 1) {
          throw new Error(`${this.id}: applying ${e.index} after ${this.sm.index} (gap or repeat)`);
        }
        this.sm = { index: e.index, hash: entryHash(this.sm.hash, e) };
        this.hooks.applied(this, e);
      }
      for (const rs of r.readStates) this.hooks.readState(this, rs);
      core.advance(r);
      this.maybeCompact(core);
      if (r.persist) {
        if (this.inflight) throw new Error(`${this.id}: a second write while one is in flight`);
        this.inflight = r;
        started = true;
      }
    }
    return started;
  }

  /**
   * The in-flight write finishes: it lands on disk, then its dependent messages go out and the core hears
   * of it. `crash` kills the server just before the write lands (it is lost) or just after (nothing sent).
   */
  completeWrite(crash: "before" | "after" | null): void {
    const r = this.inflight;
    const core = this.core;
    if (!r || !core) return;
    this.inflight = null;
    if (crash === "before") {
      this.crash();
      return;
    }
    this.persist(r);
    if (crash === "after") {
      this.crash();
      return;
    }
    if (r.snapshot) {
      const sm = this.receivedSnapshots.get(`${r.snapshot.index}:${r.snapshot.term}`);
      if (!sm) throw new Error(`${this.id}: snapshot ${r.snapshot.index} installed without its data`);
      this.sm = { ...sm };
      this.hooks.snapshotInstalled(this, r.snapshot);
    }
    for (const m of r.persistedMessages) this.hooks.send(this, m);
    core.persisted(r);
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
