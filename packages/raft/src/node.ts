import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import { decodeConfEntry } from "./core/conf.js";
import { RaftCore } from "./core/raft.js";
import type {
  ConfChange,
  ConfState,
  Entry,
  LogCacheLimits,
  LogFetch,
  Message,
  NodeId,
  ProposeResult,
  RaftStatus,
  Ready,
  Rejected,
  Role,
} from "./core/types.js";
import { CommitTimer, type RaftObserver } from "./node/commit-timer.js";
import {
  NodeStoppedError,
  NotLeaderError,
  ProposalDroppedError,
  RaftRejectedError,
  RaftTimeoutError,
} from "./node/errors.js";
import { PendingProposals, PendingReads } from "./node/pending.js";
import {
  realScheduler,
  type Scheduler,
  type SnapshotFileInfo,
  type SnapshotSink,
  type Storage,
  type TimerHandle,
  type Transport,
} from "./node/ports.js";
import type { StateMachine } from "./node/state-machine.js";

/**
 * A membership change as this driver proposes it: the core's change plus, for a new member, the address its
 * server connections accept on. The core stores the change verbatim in the conf entry, so every server learns
 * the address when it applies the entry.
 */
export type AddressedConfChange = ConfChange & { address?: string };

/** After a very long stall every timer has long expired: replaying more ticks than this changes nothing. */
const MAX_CATCH_UP_ELECTIONS = 10;
/** Consul's raft_trailing_logs default. */
const DEFAULT_TRAILING_LOGS = 10_240;
/** Gaps between runs of the driver up to this many tick periods are normal timer lateness, not stalls. */
const STALL_SLACK_TICKS = 2;

export interface RaftNodeOptions<R> {
  id: NodeId;
  /** Addresses of servers known at start (bootstrap members, join targets). */
  peers?: Record<NodeId, string>;
  /** Voters of a brand-new cluster; ignored once the data directory holds any state. */
  bootstrap?: NodeId[];
  stateMachine: StateMachine<R>;
  logger: Logger;
  tickMs?: number;
  electionTicks?: number;
  /** Random part of the election timeout, in ticks (default electionTicks: a timeout in [E, 2E)). */
  electionJitterTicks?: number;
  /** Base timeout of a campaign round that neither won nor lost, in ticks (default electionTicks). */
  electionRetryTicks?: number;
  heartbeatTicks?: number;
  /** Take a snapshot and compact the log after this many applied entries. */
  snapshotThreshold?: number;
  /**
   * How often to check `snapshotThreshold`: at a random time between this and twice this, as Consul's
   * raft_snapshot_interval. Absent or 0: after every apply (what tests and the simulator use, to snapshot
   * often). Under steady writes a server then snapshots about once per interval instead of once every
   * threshold's worth of writes, which at thousands of writes a second was every second or two.
   */
  snapshotIntervalMs?: number;
  /**
   * Entries a compaction keeps before the snapshot's index (default 10,240, Consul's raft_trailing_logs),
   * so a follower that fell only that far behind catches up from the log rather than by a whole snapshot.
   */
  trailingLogs?: number;
  /** Lease reads need this margin (in ticks) for clock drift between servers. */
  leaseDriftTicks?: number;
  /** How long a proposal may wait to be applied (default 30 s); the outcome of a timed-out one is unknown. */
  proposeTimeoutMs?: number;
  /** Default: two election timeouts. */
  readTimeoutMs?: number;
  /**
   * Appends a leader keeps unacknowledged per follower (default 2): one being written on the follower, one
   * queued behind it. A follower writes whatever arrived during its last fsync in one batch anyway, so a
   * wider window bought no lower latency, only more and smaller frames, each costing the leader's single
   * thread an encode and a socket write (256 sent a frame per loop turn, a few entries each; see
   * bench/results/2026-11-27-put-window.md).
   */
  maxInflight?: number;
  maxAppendBytes?: number;
  /**
   * A leader refuses new writes while this many entries are uncommitted (default 8,192), so a slow or lossy
   * link cannot grow a tail that every later write must wait behind.
   */
  maxUncommittedEntries?: number;
  /** How much of the log to keep in memory (the rest is read back from disk when needed). */
  logCache?: LogCacheLimits;
  /** Told of commit latencies and fsync times (metrics); measured with the scheduler's clock. */
  observer?: RaftObserver;
  random?: () => number;
  /**
   * Names this start of the server in its read requests, so none is mistaken for one of an earlier start;
   * default random. The simulator passes a count.
   */
  incarnation?: string;
}

/** The world a driver runs in (see node/ports.ts). */
export interface RaftNodePorts<T extends Transport = Transport> {
  storage: Storage;
  transport: T;
  /** Default: the event loop and `performance.now()`. */
  scheduler?: Scheduler;
}

export interface RaftNodeEvents {
  /** The known leader or this server's role changed (leader null: none known). */
  leader: [leader: NodeId | null, role: Role];
  /** The node hit an error it cannot continue after (a failed disk write) and stopped. */
  fatal: [error: Error];
}

export type RaftNodeStatus = RaftStatus & {
  snapshotIndex: number;
  connected: NodeId[];
  /** Fsynced log writes since start, and the entries they carried. */
  storage: { syncedWrites: number; entriesWritten: number };
};

/**
 * Far above what a healthy cluster holds uncommitted (each writer waits for its write: 256 clients hold at
 * most 256), and at the default 256 appends of up to 1 MiB in flight a follower takes all of it in a few
 * round trips.
 */
const DEFAULT_MAX_UNCOMMITTED = 8192;

const NOT_LEADER_REASONS = new Set(["not-leader", "no-leader", "transferring"]);

/**
 * The driver of one Raft server: feeds the pure core with ticks, messages and requests, and carries out its
 * Readys: what may happen at once (sends, applying committed entries already on disk here, read answers) at
 * once; each write as one fsynced batch, after which the messages that depended on it go out. A leader's
 * appends leave while it writes the same entries, so a commit costs one fsync round, not two in series.
 * Proposals that arrive while a batch is being written accumulate in the core and go to disk together in the
 * next one (group commit).
 */
export class RaftNode<R = unknown, T extends Transport = Transport> extends EventEmitter<RaftNodeEvents> {
  private readonly proposals: PendingProposals<R>;
  private readonly reads: PendingReads;
  private readonly unreachable = new Set<NodeId>();
  private readonly addresses: Map<NodeId, string>;
  private applied: number;
  private appliedTerm: number;
  private snapshotIndex: number;
  private driveScheduled = false;
  /** The configuration of the last applied conf entry (or snapshot); links are kept to its members too. */
  private appliedConf: ConfState = { voters: [], learners: [] };
  /** The core's configuration when links were last synced: a new one (appended or taken back) resyncs. */
  private linkedConf: ConfState | undefined;
  /** Storage work, one job at a time in order: each Ready's write, and log compactions between them. */
  private disk: Promise<void> = Promise.resolve();
  private snapshotting = false;
  /** The snapshot this node is writing of its own state, if any (stop() waits for it). */
  private snapshotWrite: Promise<void> | undefined;
  private compaction: { index: number; term: number; file: SnapshotFileInfo } | undefined;
  private readSeq = 0;
  /**
   * Read contexts name this incarnation of the server, not just the server: a leader may still hold, or the
   * network still carry, the answer to a read asked before a restart, and with a counter that starts again
   * at 1 that old, lower index would answer a new read (a stale read; found by simulator seeds 100038 and
   * 202320 once the simulator ran this driver).
   */
  private readonly readPrefix: string;
  private leader: NodeId | null = null;
  private role: Role = "follower";
  private stopped = false;
  private readonly tickHandle: TimerHandle;
  /** The next check of the snapshot threshold, with `snapshotIntervalMs`. */
  private snapshotCheck: TimerHandle | undefined;
  /** The state machine is restoring a snapshot from the leader. */
  private installing = false;
  private readonly log: Logger;
  private readonly timers: Scheduler;
  private readonly commitTimer: CommitTimer | undefined;
  private readonly tickMs: number;
  /** Monotonic time of the last tick period the core was ticked for. */
  private tickedUntil: number;
  /** Monotonic time this driver last ran (any input or tick): a longer gap than the tick timer's is a stall. */
  private ranAt: number;
  /** Stalled time not yet handed to the core as stalled ticks. */
  private stalledMs = 0;

  private constructor(
    private readonly options: RaftNodeOptions<R>,
    private readonly storage: Storage,
    /** The pure core. Read-only outside this class: the simulator's checker inspects it. */
    readonly core: RaftCore,
    /** Server connections; the next layers (write forwarding) use the production transport's RPC. */
    readonly transport: T,
    scheduler: Scheduler,
    addresses: Map<NodeId, string>,
  ) {
    super();
    this.log = options.logger;
    this.addresses = addresses;
    const snapshot = storage.restored.snapshot;
    this.applied = snapshot?.index ?? 0;
    this.appliedTerm = snapshot?.term ?? 0;
    this.snapshotIndex = this.applied;
    this.timers = scheduler;
    this.proposals = new PendingProposals<R>(scheduler);
    this.reads = new PendingReads(scheduler);
    this.readPrefix = `${options.id}/${options.incarnation ?? randomBytes(6).toString("base64url")}`;
    this.tickMs = options.tickMs ?? 100;
    this.tickedUntil = this.timers.now();
    this.ranAt = this.tickedUntil;
    const observer = options.observer;
    this.commitTimer = observer && new CommitTimer(observer, () => this.timers.now());
    this.appliedConf = core.status().conf;
    this.syncPeers();
    this.tickHandle = this.timers.setInterval(() => this.tick(), this.tickMs);
    this.armSnapshotCheck();
    this.scheduleDrive();
  }

  /**
   * Starts a driver over opened `ports`: restores the state machine from the latest snapshot, then takes
   * the transport's inbound traffic. On failure the caller still owns (and closes) the ports.
   */
  static async open<R, T extends Transport>(
    options: RaftNodeOptions<R>,
    ports: RaftNodePorts<T>,
  ): Promise<RaftNode<R, T>> {
    const log = options.logger;
    const { storage, transport } = ports;
    const scheduler = ports.scheduler ?? realScheduler;
    const { restored } = storage;
    const current = storage.snapshot;
    if (current) await options.stateMachine.restore(current.path);
    // The core uses the bootstrap configuration only if the data directory was empty.
    const bootstrap: ConfState | undefined = options.bootstrap && {
      voters: options.bootstrap,
      learners: [],
    };
    const core = new RaftCore(
      {
        id: options.id,
        electionTicks: options.electionTicks ?? 10,
        ...(options.electionJitterTicks === undefined
          ? {}
          : { electionJitterTicks: options.electionJitterTicks }),
        ...(options.electionRetryTicks === undefined
          ? {}
          : { electionRetryTicks: options.electionRetryTicks }),
        heartbeatTicks: options.heartbeatTicks ?? 1,
        random: options.random ?? Math.random,
        preVote: true,
        checkQuorum: true,
        maxInflight: options.maxInflight ?? 2,
        maxAppendBytes: options.maxAppendBytes ?? 1024 * 1024,
        maxUncommittedEntries: options.maxUncommittedEntries ?? DEFAULT_MAX_UNCOMMITTED,
        ...(options.logCache ? { logCache: options.logCache } : {}),
        leaseDriftTicks: options.leaseDriftTicks ?? 2,
      },
      { ...restored, applied: current?.meta.index ?? 0 },
      bootstrap,
    );
    // Oldest knowledge first: conf entries in the log, then the address book (kept current by hellos),
    // then what the operator configured now.
    const addresses = new Map<NodeId, string>();
    const confs = restored.bounds?.confs ?? restored.entries.filter((e) => e.kind === "conf");
    for (const e of confs) learnAddressFrom(e, addresses);
    for (const [id, address] of Object.entries(storage.addresses)) addresses.set(id, address);
    for (const [id, address] of Object.entries(options.peers ?? {})) addresses.set(id, address);

    addresses.set(options.id, transport.address);
    await storage.saveAddresses(Object.fromEntries(addresses));
    const node = new RaftNode<R, T>(options, storage, core, transport, scheduler, addresses);
    transport.attach({
      onMessages: (from, messages) => node.receive(from, messages),
      onUnreachable: (peer) => node.markUnreachable(peer),
      onRefused: (peer) => node.peerRefused(peer),
      onSnapshot: (from, message) => node.snapshotSink(from, message),
      onPeerAddress: (peer, address) => node.learnAddress(peer, address),
    });
    log.info(
      {
        id: options.id,
        address: transport.address,
        applied: node.applied,
        commit: restored.hardState.commit,
      },
      "raft node started",
    );
    return node;
  }

  get id(): NodeId {
    return this.options.id;
  }

  get address(): string {
    return this.transport.address;
  }

  get appliedIndex(): number {
    return this.applied;
  }

  isLeader(): boolean {
    return this.role === "leader";
  }

  leaderId(): NodeId | null {
    return this.leader;
  }

  addressOf(id: NodeId): string | undefined {
    return this.addresses.get(id);
  }

  /**
   * Replicates `data`; resolves with the state machine's result once the entry is applied here. Not an
   * async function, which would wrap the pending proposal's promise in one more on every write; a refusal
   * is still a rejection, never a throw.
   */
  propose(data: Uint8Array): Promise<R> {
    try {
      if (this.stopped) throw new NodeStoppedError();
      this.catchUpTicks();
      const accepted = this.accepted(this.core.propose(data));
      this.commitTimer?.proposed(accepted.index);
      this.scheduleDrive();
      return this.proposals.add(accepted.index, accepted.term, this.options.proposeTimeoutMs ?? 30_000);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Resolves with an index such that a read of the local state machine is linearizable: the leader confirmed
   * it still leads (a heartbeat round, or with `lease` its read lease) and this server has applied that far.
   */
  async readIndex(options: { lease?: boolean } = {}): Promise<number> {
    if (this.stopped) throw new NodeStoppedError();
    const ctx = `${this.readPrefix}/${++this.readSeq}`;
    const answer = this.reads.add(ctx, this.options.readTimeoutMs ?? this.electionTimeoutMs() * 2);
    this.catchUpTicks();
    this.core.readIndex(ctx, { lease: options.lease ?? false });
    this.scheduleDrive();
    return answer;
  }

  /** Asks the leader (this server) to hand leadership to `to`; resolves once `to` leads. */
  async transferLeadership(to: NodeId): Promise<void> {
    if (this.stopped) throw new NodeStoppedError();
    this.catchUpTicks();
    const rejected = this.core.transferLeadership(to);
    if (rejected) throw this.rejection(rejected);
    this.scheduleDrive();
    await this.until(
      () => this.leader === to,
      this.electionTimeoutMs() * 2,
      `leadership did not move to ${to}`,
    );
  }

  addLearner(id: NodeId, address: string): Promise<void> {
    return this.changeMembership({ op: "add-learner", node: id, address });
  }

  promote(id: NodeId): Promise<void> {
    return this.changeMembership({ op: "promote", node: id });
  }

  remove(id: NodeId): Promise<void> {
    return this.changeMembership({ op: "remove", node: id });
  }

  status(): RaftNodeStatus {
    return {
      ...this.core.status(),
      applied: this.applied,
      snapshotIndex: this.snapshotIndex,
      connected: this.transport.peers().filter((p) => this.transport.isConnected(p)),
      storage: { ...this.storage.stats },
    };
  }

  /**
   * Stops at once: no leadership hand-off, no final snapshot. What was fsynced is all a restart needs; a
   * write in progress finishes first because it cannot be cancelled.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.timers.clearInterval(this.tickHandle);
    if (this.snapshotCheck !== undefined) this.timers.clearTimeout(this.snapshotCheck);
    await this.transport.close();
    await this.disk;
    // A snapshot being written finishes (or fails) before the storage closes: after stop() nothing of this
    // node writes to its directory any more.
    await this.snapshotWrite;
    const err = new NodeStoppedError();
    this.proposals.failAll(err);
    this.reads.failAll(err);
    await this.storage.close();
    this.log.info({ id: this.id }, "raft node stopped");
  }

  private async changeMembership(change: AddressedConfChange): Promise<void> {
    if (this.stopped) throw new NodeStoppedError();
    this.catchUpTicks();
    const accepted = this.accepted(this.core.proposeConfChange(change));
    this.scheduleDrive();
    await this.proposals.add(accepted.index, accepted.term, this.options.proposeTimeoutMs ?? 30_000);
  }

  private accepted(result: ProposeResult): { index: number; term: number } {
    if ("error" in result) throw this.rejection(result);
    return result;
  }

  private rejection(r: Rejected): Error {
    if (NOT_LEADER_REASONS.has(r.error)) {
      const reason = r.error as NotLeaderError["reason"];
      return new NotLeaderError(reason, r.leader, r.leader ? (this.addresses.get(r.leader) ?? null) : null);
    }
    return new RaftRejectedError(r.error, r.leader);
  }

  private electionTimeoutMs(): number {
    return (this.options.electionTicks ?? 10) * (this.options.tickMs ?? 100);
  }

  private until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (condition()) return resolve();
      const check = () => {
        if (!condition()) return;
        this.timers.clearTimeout(timer);
        this.off("leader", check);
        resolve();
      };
      // A caller that stopped waiting (a stop bounded by its own deadline) must not hold the process open:
      // the scheduler's timeouts never do.
      const timer = this.timers.setTimeout(() => {
        this.off("leader", check);
        reject(new RaftTimeoutError(what));
      }, timeoutMs);
      this.on("leader", check);
    });
  }

  // --- inputs -------------------------------------------------------------------------------------------

  private tick(): void {
    if (this.stopped) return;
    this.catchUpTicks();
  }

  /**
   * Ticks the core once per whole tick period elapsed on the monotonic clock. Runs before every input, not
   * only on the timer: after a stall (GC pause, SIGSTOP, starved event loop) the timer fires once, late, and
   * messages or reads may be handled before it; the core's lease clock must first see the time that really
   * passed, or a deposed leader could answer a lease read from a lease that expired meanwhile. The stalled
   * part reaches the core as stalled ticks, which its election timer and CheckQuorum do not count.
   */
  private catchUpTicks(): void {
    const now = this.timers.now();
    this.noteStall(now - this.ranAt);
    this.ranAt = now;
    const periods = Math.floor((now - this.tickedUntil) / this.tickMs);
    if (periods <= 0) return;
    this.tickedUntil += periods * this.tickMs;
    // Periods this driver could not run in are stalled ticks: the messages that arrived meanwhile (the
    // leader's heartbeats among them) are still unread, so the silence they show is not the leader's.
    const stalled = Math.min(periods, Math.floor(this.stalledMs / this.tickMs));
    this.stalledMs -= stalled * this.tickMs;
    const cap = MAX_CATCH_UP_ELECTIONS * (this.options.electionTicks ?? 10);
    const live = Math.min(periods - stalled, cap);
    for (let i = Math.min(stalled, cap - live); i > 0; i--) this.core.tick(true);
    for (let i = 0; i < live; i++) this.core.tick();
    this.scheduleDrive();
  }

  /**
   * The tick timer runs every tick period, so a gap between two runs longer than two periods means the
   * event loop was blocked or starved (GC, CPU contention, a stopped process) for the excess.
   */
  private noteStall(gapMs: number): void {
    const stall = gapMs - STALL_SLACK_TICKS * this.tickMs;
    if (stall <= 0) return;
    this.stalledMs += stall;
    if (stall >= this.electionTimeoutMs() / 2)
      this.log.warn(
        { ms: Math.round(gapMs) },
        "event loop stalled; the stall is not counted as silence of the leader",
      );
  }

  private receive(from: NodeId, messages: Message[]): void {
    if (this.stopped) return;
    // Answers need a link back, even to a server this one does not know as a member yet (a new learner
    // hears from the leader before it has the log that makes the leader a member in its eyes).
    const address = this.addresses.get(from);
    if (address && !this.transport.hasPeer(from)) this.transport.setPeer(from, address);
    this.catchUpTicks();
    for (const m of messages) {
      if (m.from !== from || m.to !== this.id) {
        this.log.warn(
          { from, claimed: m.from, to: m.to },
          "dropping message with a foreign sender or recipient",
        );
        continue;
      }
      this.core.step(m);
    }
    this.scheduleDrive();
  }

  /**
   * Nothing listens at `peer`'s address: if it is the leader, it is gone, and waiting out its silence is moot.
   * A firewall that rejects with TCP resets between live servers looks the same: then the old leader may
   * answer lease reads for up to an election timeout after the others elected a successor (the window in
   * which Consul documents default-mode reads as possibly stale); reads that confirm leadership by a quorum
   * round are unaffected.
   */
  private peerRefused(peer: NodeId): void {
    if (this.stopped || this.leader !== peer || this.role === "leader") return;
    this.catchUpTicks();
    if (this.core.leaderGone(peer)) {
      this.log.info(
        { leader: peer },
        "the leader's address refuses connections; campaigning without waiting",
      );
      this.scheduleDrive();
    }
  }

  private markUnreachable(peer: NodeId): void {
    this.unreachable.add(peer);
    this.scheduleDrive();
  }

  private learnAddress(peer: NodeId, address: string): void {
    if (this.addresses.get(peer) === address) return;
    this.addresses.set(peer, address);
    this.saveAddresses();
    this.syncPeers();
  }

  // --- the loop -----------------------------------------------------------------------------------------

  /** Coalesces everything that happened in this loop turn into one pass over the core's Readys. */
  private scheduleDrive(): void {
    if (this.driveScheduled || this.stopped) return;
    this.driveScheduled = true;
    this.timers.setImmediate(() => {
      this.driveScheduled = false;
      this.drive();
    });
  }

  /**
   * Carries out every Ready the core has now (see Ready in core/types.ts). Sending, applying entries that are
   * committed and already durable here, and answering reads happen at once - also while a write is in flight,
   * so an acknowledgement that arrives during one fsync commits and applies without waiting for it. A Ready's
   * write joins the disk queue; the core hands out the next only once this one is reported durable, and
   * collects what arrives meanwhile into it (group commit).
   */
  private drive(): void {
    if (this.stopped) return;
    try {
      for (const peer of this.unreachable) this.core.reportUnreachable(peer);
      this.unreachable.clear();
      if (this.compaction) {
        const c = this.compaction;
        this.compaction = undefined;
        this.onDisk(() => this.compact(c));
      }
      while (!this.stopped && this.core.hasReady()) {
        const rd = this.core.ready();
        this.carryOut(rd);
        if (rd.persist) this.onDisk(() => this.write(rd));
      }
      if (!this.stopped && this.core.configuration !== this.linkedConf) this.syncPeers();
    } catch (err) {
      this.fatal(err as Error);
    }
  }

  private onDisk(job: () => Promise<void>): void {
    this.disk = this.disk.then(async () => {
      if (this.stopped) return;
      try {
        await job();
        this.scheduleDrive();
      } catch (err) {
        this.fatal(err as Error);
      }
    });
  }

  /** What a Ready allows at once. */
  private carryOut(rd: Ready): void {
    if (rd.softState) this.noteSoftState(rd.softState.leader, rd.softState.role);
    for (const m of rd.messages) this.send(m);
    if (rd.fetch) this.fetch(rd.fetch);
    for (const e of rd.committed) this.apply(e);
    this.commitTimer?.committed(rd.committed);
    this.core.advance(rd);
    this.reads.applied(this.applied);
    for (const rs of rd.readStates) {
      const outcome = "error" in rs ? { error: this.rejection({ error: rs.error, leader: rs.leader }) } : rs;
      this.reads.answered(rs.ctx, outcome, this.applied);
    }
    if (!this.options.snapshotIntervalMs) this.maybeSnapshot();
  }

  /** Reads back entries the core no longer holds; it asked only for durable ones, so no write is waited for. */
  private fetch(f: LogFetch): void {
    this.storage.entries(f.lo, f.hi, f.maxBytes).then(
      (entries) => {
        if (this.stopped) return;
        this.core.fetched(entries);
        this.scheduleDrive();
      },
      (err: Error) => {
        if (!this.stopped) this.fatal(err);
      },
    );
  }

  /** A Ready's write: one fsynced batch; then what waited for it. */
  private async write(rd: Ready): Promise<void> {
    const started = this.timers.now();
    await this.storage.save({
      entries: rd.entries,
      ...(rd.hardState ? { hardState: rd.hardState } : {}),
      ...(rd.snapshot ? { snapshot: rd.snapshot } : {}),
    });
    this.options.observer?.fsynced?.(this.timers.now() - started);
    if (rd.snapshot) await this.installSnapshot(rd.snapshot.index, rd.snapshot.term, rd.snapshot.conf);
    if (this.stopped) return;
    for (const m of rd.persistedMessages) this.send(m);
    this.core.persisted(rd);
  }

  private send(m: Message): void {
    if (m.type === "snapshot") this.streamSnapshot(m);
    else this.transport.send(m.to, m);
  }

  private noteSoftState(leader: NodeId | null, role: Role): void {
    const changed = leader !== this.leader || role !== this.role;
    // A read index asked of the old leader may never be answered (it died): fail it at once so the caller
    // retries with the new leader instead of waiting out the read timeout.
    if (leader !== this.leader)
      this.reads.failUnanswered(
        new NotLeaderError(
          leader === null ? "no-leader" : "not-leader",
          leader,
          leader === null ? null : (this.addressOf(leader) ?? null),
        ),
      );
    this.leader = leader;
    this.role = role;
    if (changed) {
      this.log.info({ leader, role }, "raft leadership changed");
      this.emit("leader", leader, role);
    }
  }

  private apply(e: Entry): void {
    if (e.index <= this.applied) return; // replayed by the core after a restart, already in the snapshot
    if (e.index !== this.applied + 1) throw new Error(`applying entry ${e.index} after ${this.applied}`);
    switch (e.kind) {
      case "normal": {
        let outcome: { ok: true; value: R } | { ok: false; error: Error };
        try {
          outcome = { ok: true, value: this.options.stateMachine.apply(e.index, e.data) };
        } catch (err) {
          outcome = { ok: false, error: err as Error };
        }
        this.proposals.applied(e.index, e.term, outcome);
        break;
      }
      case "conf": {
        const { change, conf } = decodeConfEntry(e.data);
        const address = (change as AddressedConfChange | null)?.address;
        if (change && typeof address === "string" && this.addresses.get(change.node) !== address) {
          this.addresses.set(change.node, address);
          this.saveAddresses();
        }
        this.appliedConf = conf;
        this.syncPeers();
        this.proposals.applied(e.index, e.term, { ok: true, value: undefined as R });
        break;
      }
      case "noop":
        this.proposals.applied(e.index, e.term, { ok: false, error: new ProposalDroppedError(e.index) });
        break;
    }
    this.applied = e.index;
    this.appliedTerm = e.term;
  }

  /**
   * Keeps one link per other member, of the configuration in force in the core and of the last applied one,
   * and to the leader; links to servers in neither close. The core's configuration can change without an
   * apply: an appended change takes effect at once, and a truncated tail takes it back. A member restored
   * that way must get its link back, or a leader keeps it in its configuration and never reaches it.
   */
  private syncPeers(): void {
    const conf = this.core.configuration;
    this.linkedConf = conf;
    const members = new Set([...conf.voters, ...conf.learners]);
    for (const id of [...this.appliedConf.voters, ...this.appliedConf.learners]) members.add(id);
    if (this.leader) members.add(this.leader);
    members.delete(this.id);
    for (const id of members) {
      const address = this.addresses.get(id);
      if (address) this.transport.setPeer(id, address);
      else this.log.warn({ peer: id }, "no address known for a member");
    }
    for (const id of this.transport.peers()) if (!members.has(id)) this.transport.removePeer(id);
  }

  private saveAddresses(): void {
    this.storage
      .saveAddresses(Object.fromEntries(this.addresses))
      .catch((err: Error) => this.log.warn({ err: err.message }, "could not save the address book"));
  }

  // --- snapshots ----------------------------------------------------------------------------------------

  /** Leader side: stream our snapshot file to a follower that fell behind the compacted log. */
  private streamSnapshot(m: Extract<Message, { type: "snapshot" }>): void {
    const current = this.storage.snapshot;
    const report = (ok: boolean) => {
      if (this.stopped) return;
      this.core.reportSnapshot(m.to, ok);
      this.scheduleDrive();
    };
    if (!current || current.meta.index !== m.snapshot.index) {
      this.timers.setImmediate(() => report(false));
      return;
    }
    this.log.info({ to: m.to, index: m.snapshot.index }, "sending snapshot");
    this.transport
      .sendSnapshot(m.to, { ...m, addresses: this.addressesOf(m.snapshot.conf) }, current.path)
      .then(
        () => report(true),
        (err: Error) => {
          this.log.warn({ to: m.to, err: err.message }, "snapshot transfer failed");
          report(false);
        },
      );
  }

  /** The address of each member of `conf` this server knows, itself included. */
  private addressesOf(conf: ConfState): Record<NodeId, string> {
    const book: Record<NodeId, string> = {};
    for (const id of [...conf.voters, ...conf.learners]) {
      const address = this.addresses.get(id);
      if (address) book[id] = address;
    }
    return book;
  }

  /** Follower side: where an incoming snapshot is written; once durable, its message goes to the core. */
  private async snapshotSink(from: NodeId, message: Message): Promise<SnapshotSink> {
    if (message.type !== "snapshot" || message.from !== from) throw new Error("not a snapshot message");
    const writer = await this.storage.createSnapshotWriter(message.snapshot);
    return {
      write: (chunk) => writer.write(chunk),
      commit: async () => {
        this.storage.noteReceivedSnapshot(await writer.commit());
        if (this.stopped) return;
        this.learnSnapshotAddresses(message.addresses);
        this.catchUpTicks();
        this.core.step(message);
        this.scheduleDrive();
      },
      abort: () => writer.abort(),
    };
  }

  /**
   * Members this server meets first in a snapshot would otherwise have no address: their conf entries are
   * compacted away, and a member that never dials in is never heard from (once leader, this server would keep
   * it in its configuration and never reach it). An address already known is kept: it may come from a
   * fresher hello than the sender's book.
   */
  private learnSnapshotAddresses(book: Record<NodeId, string> | undefined): void {
    let learned = false;
    for (const [id, address] of Object.entries(book ?? {})) {
      if (id === this.id || this.addresses.has(id)) continue;
      this.addresses.set(id, address);
      learned = true;
    }
    if (learned) this.saveAddresses();
  }

  /** A snapshot from the leader is durable: the state machine jumps to it. */
  private async installSnapshot(index: number, term: number, conf: ConfState): Promise<void> {
    const current = this.storage.snapshot;
    if (!current) throw new Error("snapshot recorded without a file");
    this.installing = true;
    try {
      await this.options.stateMachine.restore(current.path);
    } finally {
      this.installing = false;
    }
    this.proposals.skippedThrough(index);
    this.applied = index;
    this.appliedTerm = term;
    this.snapshotIndex = index;
    this.appliedConf = conf;
    this.syncPeers();
    this.log.info({ index, term }, "installed snapshot from leader");
  }

  /** With `snapshotIntervalMs`: checks the threshold at a random time in [interval, 2 × interval), again and again. */
  private armSnapshotCheck(): void {
    const interval = this.options.snapshotIntervalMs;
    if (!interval) return;
    const random = this.options.random ?? Math.random;
    this.snapshotCheck = this.timers.setTimeout(
      () => {
        if (this.stopped) return;
        // Not while the state machine is being replaced by the leader's snapshot: it would capture half of it.
        if (!this.installing) this.maybeSnapshot();
        this.armSnapshotCheck();
      },
      interval * (1 + random()),
    );
  }

  /**
   * Once `snapshotThreshold` entries were applied since the last snapshot: snapshot the state machine, then
   * compact the log. Runs between drives (after one, or on the interval's timer), never inside an apply.
   */
  private maybeSnapshot(): void {
    const threshold = this.options.snapshotThreshold ?? 10_000;
    if (this.snapshotting || this.applied - this.snapshotIndex < threshold) return;
    this.snapshotting = true;
    const index = this.applied;
    const term = this.appliedTerm;
    const writer = this.storage.createSnapshotWriter({ index, term });
    // The state machine captures its state now, synchronously, at exactly `index`.
    let written: Promise<void>;
    try {
      written = this.options.stateMachine.snapshot({ write: async (chunk) => (await writer).write(chunk) });
    } catch (err) {
      written = Promise.reject(err);
    }
    this.snapshotWrite = (async () => {
      const [w, done] = await Promise.allSettled([writer, written]);
      if (w.status === "rejected") throw w.reason;
      if (done.status === "rejected") {
        await w.value.abort();
        throw done.reason;
      }
      this.compaction = { index, term, file: await w.value.commit() };
      this.scheduleDrive();
    })().catch((err: Error) => {
      this.snapshotting = false;
      this.log.error({ err: err.message, index }, "taking a snapshot failed");
    });
  }

  /** Runs on the disk queue, between writes, so the core's log and the durable log shrink together. */
  private async compact(c: { index: number; term: number; file: SnapshotFileInfo }): Promise<void> {
    this.snapshotting = false;
    const trailing = this.options.trailingLogs ?? DEFAULT_TRAILING_LOGS;
    const meta = this.core.compact(c.index, trailing);
    if (meta.index !== c.index) {
      // A snapshot installed from the leader meanwhile already covers more than ours.
      await this.storage.discardSnapshotFile(c.file);
      return;
    }
    if (meta.term !== c.term)
      throw new Error(`core compacted ${c.index} at term ${meta.term}, applied ${c.term}`);
    await this.storage.compact(meta, c.file, c.index - trailing);
    this.snapshotIndex = c.index;
    this.log.info({ index: c.index }, "log compacted");
  }

  private fatal(err: Error): void {
    if (this.stopped) return;
    this.log.fatal({ err: err.message, stack: err.stack }, "raft node cannot continue");
    this.emit("fatal", err);
    void this.stop();
  }
}

function learnAddressFrom(e: Entry, addresses: Map<NodeId, string>): void {
  if (e.kind !== "conf") return;
  const { change } = decodeConfEntry(e.data);
  const address = (change as AddressedConfChange | null)?.address;
  if (change && typeof address === "string") addresses.set(change.node, address);
}
