import { applyConfChange, encodeConfEntry } from "./conf.js";
import { RaftLog } from "./log.js";
import { Progress } from "./progress.js";
import { quorumSize, quorumValue } from "./quorum.js";
import { ReadQueue } from "./read-queue.js";
import type {
  ConfChange,
  ConfState,
  Entry,
  EntryKind,
  HardState,
  LogFetch,
  Message,
  NodeId,
  ProposeResult,
  RaftConfig,
  RaftStatus,
  ReadState,
  Ready,
  Rejected,
  RejectReason,
  RestoreState,
  Role,
  SnapshotMeta,
} from "./types.js";

type Outgoing = Message extends infer M ? (M extends Message ? Omit<M, "from" | "term"> : never) : never;

const EMPTY = new Uint8Array(0);

/** Enough that a healthy cluster never reads its log back; small enough to bound memory at any log length. */
export const DEFAULT_LOG_CACHE = { maxEntries: 65_536, maxBytes: 32 * 1024 * 1024 };
/** Entries per read from storage at most. */
const FETCH_ENTRIES = 4096;

/**
 * Messages that promise something this server must have on disk first: an accepted append (the entries), a
 * granted vote (the vote), a vote request (the candidate's vote for itself, which it counts). Their rejecting
 * forms go the same way, which costs nothing. Everything else - a leader's appends and heartbeats included -
 * may leave before this server's pending write is durable.
 */
const AFTER_PERSIST: ReadonlySet<Message["type"]> = new Set(["append-resp", "vote-resp", "vote"]);

/** Entries must follow prevIndex without gaps, in non-decreasing terms no later than the sender's. */
function wellFormed(m: Extract<Message, { type: "append" }>): boolean {
  let term = m.prevTerm;
  for (let k = 0; k < m.entries.length; k++) {
    const e = m.entries[k]!;
    if (e.index !== m.prevIndex + 1 + k || e.term < term || e.term > m.term) return false;
    term = e.term;
  }
  return true;
}

/**
 * A pure Raft state machine (no timers, no I/O), in the style of etcd's raft package.
 *
 * Membership follows the Raft dissertation's single-server scheme: a configuration takes effect as
 * soon as its entry is in the log (committed or not), at most one may be uncommitted, and a leader
 * accepts one only after committing an entry of its own term (which closes the known single-server
 * change bug).
 */
export class RaftCore {
  private readonly cfg: RaftConfig;
  readonly id: NodeId;

  private term = 0;
  private vote: NodeId | null = null;
  private role: Role = "follower";
  private leader: NodeId | null = null;

  private readonly log: RaftLog;
  private commit: number;
  /** Last committed index handed to the driver in a Ready. */
  private handedOff: number;
  /** Last index the driver reported applied (via advance). */
  private applied: number;
  /** Latest snapshot position, sent to followers whose next entry was compacted away. */
  private snapshotMeta: SnapshotMeta;
  /** A snapshot received from the leader that the next Ready must hand to the driver. */
  private receivedSnapshot: SnapshotMeta | null = null;

  private conf: ConfState;
  /** Index of the entry (or snapshot) that established `conf`. */
  private confIndex: number;

  /** Local tick clock; dates lease acknowledgements. */
  private now = 0;
  private electionElapsed = 0;
  private heartbeatElapsed = 0;
  private randomizedTimeout = 0;
  /**
   * Ticks since this node last heard from a leader (0 at start: a restarted node may have acked a
   * leader just before crashing). While below electionTicks, CheckQuorum makes it ignore votes.
   */
  private leaderContactElapsed = 0;

  private readonly votes = new Map<NodeId, boolean>();
  private readonly progress = new Map<NodeId, Progress>();
  /** Index of this leader's noop: nothing of the term is committed before it. */
  private termStartIndex = 0;
  private leadTransferee: NodeId | null = null;
  private transferElapsed = 0;
  /** Set once this leader sent TimeoutNow: its target may win an election regardless of stickiness. */
  private leaseRevoked = false;
  /** A Ready's `fetch` was handed out and fetched() has not been called for it yet. */
  private fetching = false;
  /** Followers whose next append needs entries that are only on disk. */
  private readonly fetchWaiters = new Set<NodeId>();
  /** Appends are batched: proposals mark this and ready() sends once per follower. */
  private broadcastPending = false;

  private readonly reads = new ReadQueue();

  private msgs: Message[] = [];
  /** Messages to hand out with the next write, sent once it (and every earlier one) is durable. */
  private msgsAfterPersist: Message[] = [];
  /** A Ready with a write was handed out and persisted() has not been called for it yet. */
  private persisting = false;
  private readStates: ReadState[] = [];
  private prevHard: HardState;
  private prevSoft: { leader: NodeId | null; role: Role };

  constructor(config: RaftConfig, restored: RestoreState, bootstrap?: ConfState) {
    if (config.electionTicks <= config.heartbeatTicks)
      throw new Error("electionTicks must exceed heartbeatTicks");
    this.cfg = config;
    this.id = config.id;
    const snap = restored.snapshot;
    const emptyConf: ConfState = { voters: [], learners: [] };
    this.log = new RaftLog(
      snap?.index ?? 0,
      snap?.term ?? 0,
      snap?.conf ?? emptyConf,
      restored.entries,
      config.logCache ?? DEFAULT_LOG_CACHE,
      restored.bounds,
    );
    this.snapshotMeta = snap ?? { index: 0, term: 0, conf: emptyConf };
    this.term = restored.hardState.term;
    this.vote = restored.hardState.vote;
    this.applied = Math.min(
      Math.max(restored.applied ?? this.log.offset, this.log.offset),
      this.log.lastIndex(),
    );
    this.commit = Math.min(Math.max(restored.hardState.commit, this.applied), this.log.lastIndex());
    this.handedOff = this.applied;
    this.log.trim(this.handedOff);
    this.prevHard = { term: this.term, vote: this.vote, commit: this.commit };

    const pristine = this.term === 0 && snap === null && this.log.lastIndex() === 0;
    if (pristine && bootstrap) {
      // Every bootstrapping server writes this identical first entry, so their logs agree from the start.
      this.term = 1;
      this.log.append({
        term: 1,
        index: 1,
        kind: "conf",
        data: encodeConfEntry({ change: null, conf: bootstrap }),
      });
      this.commit = 1;
    }
    const c = this.log.confAt(this.log.lastIndex());
    this.conf = c.conf;
    this.confIndex = c.index;
    this.becomeFollower(this.term, null);
    this.prevSoft = { leader: null, role: "follower" };
  }

  // ---------------------------------------------------------------- driver API

  /**
   * One tick period passed. `stalled`: the driver could not run during it (its event loop was blocked or
   * starved), so silence then is no evidence of a dead leader or a lost quorum: it advances the clocks that
   * safety rests on (the lease clock, the vote stickiness), and the leader's heartbeats, but not the election
   * timer, neither a follower's nor the leader's CheckQuorum. Counting less can only delay an election.
   */
  tick(stalled = false): void {
    this.now++;
    this.leaderContactElapsed++;
    if (this.role === "leader") this.tickLeader(stalled);
    else if (!stalled) this.tickElection();
  }

  /**
   * The driver learnt that the leader's process is gone (its address refuses connections): it holds no lease
   * any more, so this server neither waits out an election timeout nor protects it from votes; it campaigns
   * after a short random delay (to keep survivors from splitting the vote). Returns whether it applied.
   */
  leaderGone(id: NodeId): boolean {
    if (this.role === "leader" || this.leader !== id) return false;
    this.leaderContactElapsed = Math.max(this.leaderContactElapsed, this.cfg.electionTicks);
    this.electionElapsed = 0;
    const spread = 2 * (this.cfg.electionRetryTicks ?? 2);
    this.randomizedTimeout = 1 + Math.floor(this.cfg.random() * spread);
    return true;
  }

  step(m: Message): void {
    if (m.to !== this.id) return;
    if (m.term > this.term) {
      if (m.type === "pre-vote" || m.type === "vote") {
        // Leader stickiness: with a live leader, a vote request is a disruptive (or partitioned) server.
        if (!m.transfer && this.inLease()) return;
      }
      if (m.type === "pre-vote" || (m.type === "pre-vote-resp" && !m.reject)) {
        // A pre-vote is about a hypothetical term: it must not change ours.
      } else {
        const fromLeader = m.type === "append" || m.type === "heartbeat" || m.type === "snapshot";
        this.becomeFollower(m.term, fromLeader ? m.from : null, !fromLeader);
      }
    } else if (m.term < this.term) {
      if ((this.cfg.checkQuorum || this.cfg.preVote) && (m.type === "append" || m.type === "heartbeat")) {
        // A stale leader (e.g. partitioned away) would otherwise never learn it was deposed.
        this.send({
          type: "append-resp",
          to: m.from,
          index: 0,
          reject: true,
          hintIndex: 0,
          hintTerm: 0,
          sent: 0,
        });
      } else if (m.type === "pre-vote") {
        this.send({ type: "pre-vote-resp", to: m.from, reject: true });
      }
      return;
    }

    switch (m.type) {
      case "pre-vote":
      case "vote":
        this.handleVoteRequest(m);
        return;
      case "pre-vote-resp":
      case "vote-resp":
        this.handleVoteResponse(m);
        return;
      case "append":
      case "heartbeat":
      case "snapshot":
        if (this.role === "leader") return; // cannot happen: one leader per term
        if (this.role !== "follower" || this.leader !== m.from) this.becomeFollower(this.term, m.from);
        this.electionElapsed = 0;
        this.leaderContactElapsed = 0;
        if (m.type === "append") this.handleAppend(m);
        else if (m.type === "heartbeat") this.handleHeartbeat(m);
        else this.handleSnapshot(m.from, m.snapshot);
        return;
      case "append-resp":
        if (this.role === "leader") this.handleAppendResponse(m);
        return;
      case "heartbeat-resp":
        if (this.role === "leader") this.handleHeartbeatResponse(m);
        return;
      case "timeout-now":
        if (this.role !== "leader" && this.promotable()) this.campaign("vote", true);
        return;
      case "read-index":
        if (this.role === "leader") this.handleRead(m.ctx, m.from, m.lease);
        else this.send({ type: "read-index-resp", to: m.from, ctx: m.ctx, index: 0, reject: "not-leader" });
        return;
      case "read-index-resp":
        if (m.reject === null) this.readStates.push({ ctx: m.ctx, index: m.index });
        else this.readStates.push({ ctx: m.ctx, error: m.reject, leader: this.leader });
        return;
    }
  }

  propose(data: Uint8Array): ProposeResult {
    const refused = this.refuseProposal();
    if (refused) return refused;
    const limit = this.cfg.maxUncommittedEntries;
    if (limit !== undefined && this.log.lastIndex() - this.commit >= limit) {
      return this.rejected("too-many-uncommitted");
    }
    return this.appendOwn("normal", data);
  }

  proposeConfChange(c: ConfChange): ProposeResult {
    const refused = this.refuseProposal();
    if (refused) return refused;
    if (this.commit < this.termStartIndex) return this.rejected("term-not-committed");
    if (this.confIndex > this.commit) return this.rejected("conf-pending");
    if (c.op === "promote") {
      const pr = this.progress.get(c.node);
      if (pr && pr.match < this.commit) return this.rejected("learner-behind");
    }
    const next = applyConfChange(this.conf, c);
    if (typeof next === "string") return this.rejected(next);
    return this.appendOwn("conf", encodeConfEntry({ change: c, conf: next }));
  }

  /**
   * Ask for a read index. The answer arrives as a ReadState with the same ctx: once the state machine
   * has applied that index, a read is linearizable. `lease` lets a leader answer from its lease
   * without a heartbeat round (only with checkQuorum and leaseDriftTicks; otherwise a normal round).
   */
  readIndex(ctx: string, opts?: { lease?: boolean }): void {
    const lease = opts?.lease ?? false;
    if (this.role === "leader") this.handleRead(ctx, this.id, lease);
    else if (this.leader !== null) this.send({ type: "read-index", to: this.leader, ctx, lease });
    else this.readStates.push({ ctx, error: "no-leader", leader: null });
  }

  /** Hand leadership to `to`: catch it up, then tell it to campaign at once. Aborts after an election timeout. */
  transferLeadership(to: NodeId): Rejected | null {
    if (this.role !== "leader") return this.rejected("not-leader");
    if (to === this.id) return null;
    if (!this.conf.voters.includes(to)) return this.rejected("unknown-node");
    if (this.leadTransferee === to) return null;
    this.leadTransferee = to;
    this.transferElapsed = 0;
    const pr = this.progress.get(to)!;
    if (pr.match === this.log.lastIndex()) this.sendTimeoutNow(to);
    else {
      // Start catching it up now rather than at the next heartbeat.
      if (pr.state === "probe") pr.probeSent = false;
      this.sendAppend(to, true);
    }
    return null;
  }

  /**
   * The application has a snapshot of its state machine through `index` (<= applied): drop the log up to
   * it, except its last `trailing` entries, so a follower only slightly behind catches up from the log
   * instead of needing the whole snapshot (Consul's raft_trailing_logs). Returns the metadata to store with
   * the snapshot (and to send to followers behind the kept entries).
   */
  compact(index: number, trailing = 0): SnapshotMeta {
    if (index <= this.snapshotMeta.index) return this.snapshotMeta;
    if (index > this.applied) throw new Error(`compact(${index}) beyond applied index ${this.applied}`);
    const conf = this.log.confAt(index).conf;
    const term = this.log.term(index)!;
    this.log.compact(index - trailing);
    this.snapshotMeta = { index, term, conf };
    return this.snapshotMeta;
  }

  /** The leader's driver finished (ok) or gave up on streaming a snapshot to `to`. */
  reportSnapshot(to: NodeId, ok: boolean): void {
    const pr = this.progress.get(to);
    if (this.role !== "leader" || !pr || pr.state !== "snapshot") return;
    if (!ok) pr.pendingSnapshot = 0;
    pr.becomeProbe();
    // Wait for the follower's answer (or the next heartbeat) before probing again.
    pr.probeSent = true;
  }

  reportUnreachable(to: NodeId): void {
    const pr = this.progress.get(to);
    if (this.role === "leader" && pr?.state === "replicate") pr.becomeProbe();
  }

  hasReady(): boolean {
    return (
      this.broadcastPending ||
      this.reads.hasOpenRound() ||
      this.msgs.length > 0 ||
      this.readStates.length > 0 ||
      (this.committable() > this.handedOff && !this.log.missing(this.handedOff + 1)) ||
      this.prevSoft.leader !== this.leader ||
      this.prevSoft.role !== this.role ||
      (!this.persisting && this.hasWrite()) ||
      (!this.fetching && this.wantedFetch() !== null)
    );
  }

  /**
   * The driver's answer to a Ready's `fetch`: entries read from storage (possibly fewer than asked, or none if
   * the range was compacted meanwhile). Appends waiting for them go out now; committed ones go in the next Ready.
   */
  fetched(entries: readonly Entry[]): void {
    this.fetching = false;
    this.log.supply(entries);
    if (this.role !== "leader") {
      this.fetchWaiters.clear();
      return;
    }
    const waiting = [...this.fetchWaiters];
    this.fetchWaiters.clear();
    for (const id of waiting) this.sendAppends(id);
  }

  /**
   * The next range to read back from storage, if something waits for entries no longer in memory: applying
   * comes first (it blocks reads and clients), then followers lagging behind the in-memory window.
   *
   * Why the core asks rather than reads: it stays pure and deterministic (storage reads are asynchronous), as in
   * etcd raft, whose storage may answer "unavailable" and whose driver fetches and steps again. Nothing waits for
   * the answer meanwhile: ticks, votes, proposals and appends to other followers go on.
   */
  private wantedFetch(): LogFetch | null {
    const upTo = this.committable();
    const lo = this.handedOff + 1;
    if (upTo >= lo && this.log.missing(lo)) return this.fetchFrom(lo, upTo + 1);
    if (this.fetchWaiters.size === 0) return null;
    for (const id of this.fetchWaiters) {
      const pr = this.progress.get(id);
      if (this.role === "leader" && pr && pr.state !== "snapshot" && this.log.missing(pr.next)) {
        return this.fetchFrom(pr.next, this.log.lastIndex() + 1);
      }
      this.fetchWaiters.delete(id);
    }
    return null;
  }

  private fetchFrom(lo: number, hi: number): LogFetch {
    const cache = this.cfg.logCache ?? DEFAULT_LOG_CACHE;
    const end = Math.min(this.log.fetchEnd(hi), lo + Math.max(1, Math.min(cache.maxEntries, FETCH_ENTRIES)));
    return { lo, hi: end, maxBytes: Math.max(1, Math.min(cache.maxBytes, this.cfg.maxAppendBytes * 4)) };
  }

  /** Collect the work since the last ready(); what it returns is considered handed to the driver. */
  ready(): Ready {
    if (this.broadcastPending) {
      this.broadcastPending = false;
      if (this.role === "leader") this.broadcastAppend();
    }
    if (this.role === "leader" && this.reads.startRound()) this.broadcastHeartbeat();
    const upTo = this.committable();
    const r: Ready = {
      messages: this.msgs,
      // Only what is in memory; the rest comes back from storage through `fetch`, in order.
      committed: upTo > this.handedOff ? this.log.slice(this.handedOff + 1, upTo + 1) : [],
      readStates: this.readStates,
      persist: false,
      entries: [],
      persistedMessages: [],
    };
    const lastHanded = r.committed[r.committed.length - 1];
    if (lastHanded) {
      this.handedOff = lastHanded.index;
      this.log.trim(this.handedOff);
    }
    const fetch = this.fetching ? null : this.wantedFetch();
    if (fetch) {
      this.fetching = true;
      r.fetch = fetch;
    }
    this.msgs = [];
    this.readStates = [];
    if (this.prevSoft.leader !== this.leader || this.prevSoft.role !== this.role) {
      r.softState = { leader: this.leader, role: this.role };
      this.prevSoft = r.softState;
    }
    if (this.persisting || !this.hasWrite()) return r;
    // Everything that accumulated since the last write goes into this one (group commit).
    this.persisting = true;
    r.persist = true;
    r.entries = this.log.unstableEntries();
    this.log.markHandedOff();
    r.persistedMessages = this.msgsAfterPersist;
    this.msgsAfterPersist = [];
    if (this.hardChanged()) {
      r.hardState = { term: this.term, vote: this.vote, commit: this.commit };
      this.prevHard = r.hardState;
    }
    if (this.receivedSnapshot) {
      r.snapshot = this.receivedSnapshot;
      this.receivedSnapshot = null;
    }
    return r;
  }

  /** The driver applied `r.committed`. */
  advance(r: Ready): void {
    const last = r.committed[r.committed.length - 1];
    if (last && last.index > this.applied) this.applied = last.index;
  }

  /**
   * The write of `r` (a Ready with `persist`) is durable, and a snapshot in it is installed in the state
   * machine. Entries written count now as this server's own acknowledgement, and may be applied once committed.
   */
  persisted(r: Ready): void {
    if (!r.persist || !this.persisting) throw new Error("persisted() without a write in flight");
    this.persisting = false;
    if (r.snapshot && r.snapshot.index > this.applied) this.applied = r.snapshot.index;
    // A snapshot that arrived during the write replaced the log in memory and is not on disk yet.
    if (this.receivedSnapshot === null) {
      this.log.markStable();
      this.log.trim(this.handedOff);
    }
    if (this.role === "leader" && this.maybeCommit()) this.broadcastPending = true;
  }

  /** A new commit index alone is no reason to write (it is relearnt after a crash): it rides on the next write. */
  private hasWrite(): boolean {
    return (
      this.msgsAfterPersist.length > 0 ||
      this.receivedSnapshot !== null ||
      this.log.unstable <= this.log.lastIndex() ||
      this.term !== this.prevHard.term ||
      this.vote !== this.prevHard.vote
    );
  }

  /** Committed entries that are durable here too: only those may be applied. */
  private committable(): number {
    return Math.min(this.commit, this.log.stable);
  }

  /** `withProgress: false` skips the per-follower progress (cheaper, for frequent polling). */
  /**
   * The configuration in force: the latest in the log, committed or not. A new object whenever it changes,
   * including when a truncated tail takes an appended change back.
   */
  get configuration(): ConfState {
    return this.conf;
  }

  status(withProgress = true): RaftStatus {
    let progress: RaftStatus["progress"] = null;
    if (this.role === "leader" && withProgress) {
      progress = {};
      for (const [id, pr] of this.progress) progress[id] = pr.toStatus();
    }
    return {
      id: this.id,
      term: this.term,
      vote: this.vote,
      role: this.role,
      leader: this.leader,
      commit: this.commit,
      applied: this.applied,
      firstIndex: this.log.offset + 1,
      lastIndex: this.log.lastIndex(),
      conf: { voters: [...this.conf.voters], learners: [...this.conf.learners] },
      leadTransferee: this.leadTransferee,
      progress,
    };
  }

  /** True while this leader may answer lease reads without a heartbeat round. */
  leaseValid(): boolean {
    const drift = this.cfg.leaseDriftTicks;
    // A drift of at least one tick covers the phase difference between two servers' tick boundaries.
    if (this.role !== "leader" || !this.cfg.checkQuorum || drift === undefined || drift < 1) return false;
    if (this.leaseRevoked || this.leadTransferee !== null || this.commit < this.termStartIndex) return false;
    const acked = this.conf.voters.map((v) =>
      v === this.id ? this.now : (this.progress.get(v)?.ackedSent ?? Number.NEGATIVE_INFINITY),
    );
    return this.now < quorumValue(acked) + this.cfg.electionTicks - drift;
  }

  // ---------------------------------------------------------------- roles and elections

  private promotable(): boolean {
    return this.conf.voters.includes(this.id);
  }

  private inLease(): boolean {
    return (
      this.cfg.checkQuorum && (this.role === "leader" || this.leaderContactElapsed < this.cfg.electionTicks)
    );
  }

  private resetTimers(): void {
    this.electionElapsed = 0;
    this.heartbeatElapsed = 0;
    const jitter = this.cfg.electionJitterTicks ?? this.cfg.electionTicks;
    // A (pre-)candidate whose round neither won nor lost (a split vote, or a voter still within its lease
    // of the dead leader by a tick) has no leader to wait out: it may try again sooner.
    const campaigning = this.role === "candidate" || this.role === "pre-candidate";
    const base = campaigning
      ? (this.cfg.electionRetryTicks ?? this.cfg.electionTicks)
      : this.cfg.electionTicks;
    this.randomizedTimeout = base + Math.floor(this.cfg.random() * jitter);
  }

  /**
   * `keepTimer`: a higher term learnt from anyone but a leader does not restart a follower's or
   * candidate's election timer (Figure 2 resets it only for a leader's append or a granted vote). Were it
   * restarted, servers with stale logs but eager timers could keep the up-to-date ones from ever
   * campaigning, as long as their rejected elections keep bumping the term.
   */
  private becomeFollower(term: number, leader: NodeId | null, keepTimer = false): void {
    const wasLeader = this.role === "leader";
    if (wasLeader) this.abandonLeadership();
    if (term !== this.term) {
      this.term = term;
      this.vote = null;
    }
    this.role = "follower";
    this.leader = leader;
    this.votes.clear();
    if (!keepTimer || wasLeader) this.resetTimers();
  }

  private abandonLeadership(): void {
    for (const r of this.reads.drain()) this.answerRead(r.ctx, r.from, "not-leader");
    this.progress.clear();
    this.fetchWaiters.clear();
    this.leadTransferee = null;
    this.broadcastPending = false;
  }

  private campaign(kind: "pre-vote" | "vote", transfer = false): void {
    if (kind === "pre-vote") {
      this.role = "pre-candidate";
      this.leader = null;
      this.votes.clear();
      this.resetTimers();
    } else {
      this.becomeFollower(this.term + 1, null);
      this.role = "candidate";
      this.vote = this.id;
      this.resetTimers();
    }
    this.votes.set(this.id, true);
    if (this.tally() === "won") {
      if (kind === "pre-vote") this.campaign("vote");
      else this.becomeLeader();
      return;
    }
    const term = kind === "pre-vote" ? this.term + 1 : this.term;
    const lastIndex = this.log.lastIndex();
    const lastTerm = this.log.lastTerm();
    for (const v of this.conf.voters) {
      if (v !== this.id) this.push({ type: kind, from: this.id, to: v, term, lastIndex, lastTerm, transfer });
    }
  }

  private tally(): "won" | "lost" | "pending" {
    let granted = 0;
    let rejected = 0;
    for (const v of this.conf.voters) {
      const g = this.votes.get(v);
      if (g === true) granted++;
      else if (g === false) rejected++;
    }
    const quorum = quorumSize(this.conf.voters.length);
    if (granted >= quorum) return "won";
    if (rejected >= quorum) return "lost";
    return "pending";
  }

  private handleVoteRequest(m: Extract<Message, { type: "pre-vote" | "vote" }>): void {
    const canVote =
      this.vote === m.from ||
      (this.vote === null && this.leader === null) ||
      (m.type === "pre-vote" && m.term > this.term);
    const lastTerm = this.log.lastTerm();
    const upToDate =
      m.lastTerm > lastTerm || (m.lastTerm === lastTerm && m.lastIndex >= this.log.lastIndex());
    const resp = m.type === "vote" ? "vote-resp" : "pre-vote-resp";
    if (canVote && upToDate) {
      // A granted pre-vote answers in the hypothetical term so the pre-candidate can count it.
      this.push({ type: resp, from: this.id, to: m.from, term: m.term, reject: false });
      if (m.type === "vote") {
        this.vote = m.from;
        this.electionElapsed = 0;
      }
    } else {
      this.send({ type: resp, to: m.from, reject: true });
    }
  }

  private handleVoteResponse(m: Extract<Message, { type: "pre-vote-resp" | "vote-resp" }>): void {
    const expected = m.type === "pre-vote-resp" ? "pre-candidate" : "candidate";
    if (this.role !== expected) return;
    // A granted pre-vote is in the hypothetical next term; anything else would be left over from another round.
    if (m.type === "pre-vote-resp" && !m.reject && m.term !== this.term + 1) return;
    this.votes.set(m.from, !m.reject);
    const outcome = this.tally();
    if (outcome === "won") {
      if (m.type === "pre-vote-resp") this.campaign("vote");
      else this.becomeLeader();
    } else if (outcome === "lost") {
      this.becomeFollower(this.term, null);
    }
  }

  private becomeLeader(): void {
    this.role = "leader";
    this.leader = this.id;
    this.votes.clear();
    this.resetTimers();
    this.leaderContactElapsed = 0;
    this.leadTransferee = null;
    this.leaseRevoked = false;
    this.progress.clear();
    this.syncProgress();
    this.appendOwn("noop", EMPTY);
    this.termStartIndex = this.log.lastIndex();
    this.broadcastAppend();
    this.broadcastPending = false;
  }

  /** Make the progress map match the configuration (everyone but this node). */
  private syncProgress(): void {
    const members = new Set([...this.conf.voters, ...this.conf.learners]);
    members.delete(this.id);
    for (const id of this.progress.keys()) if (!members.has(id)) this.progress.delete(id);
    for (const id of members) {
      if (!this.progress.has(id))
        this.progress.set(id, new Progress(this.log.lastIndex() + 1, this.cfg.maxInflight));
    }
    if (this.leadTransferee !== null && !this.conf.voters.includes(this.leadTransferee))
      this.leadTransferee = null;
  }

  // ---------------------------------------------------------------- ticking

  private tickElection(): void {
    this.electionElapsed++;
    if (this.electionElapsed >= this.randomizedTimeout && this.promotable()) {
      this.campaign(this.cfg.preVote ? "pre-vote" : "vote");
    }
  }

  private tickLeader(stalled: boolean): void {
    this.leaderContactElapsed = 0;
    this.heartbeatElapsed++;
    if (!stalled) this.electionElapsed++;
    if (this.leadTransferee !== null && ++this.transferElapsed >= this.cfg.electionTicks) {
      this.leadTransferee = null;
    }
    if (this.electionElapsed >= this.cfg.electionTicks) {
      this.electionElapsed = 0;
      if (this.cfg.checkQuorum) {
        if (!this.quorumActive()) {
          this.becomeFollower(this.term, null);
          return;
        }
        for (const pr of this.progress.values()) pr.recentActive = false;
      }
    }
    if (this.heartbeatElapsed >= this.cfg.heartbeatTicks) {
      this.heartbeatElapsed = 0;
      this.broadcastHeartbeat();
    }
  }

  private quorumActive(): boolean {
    let active = 0;
    for (const v of this.conf.voters) if (v === this.id || this.progress.get(v)?.recentActive) active++;
    return active >= quorumSize(this.conf.voters.length);
  }

  // ---------------------------------------------------------------- replication (leader side)

  private refuseProposal(): Rejected | null {
    if (this.role !== "leader") return this.rejected("not-leader");
    if (this.leadTransferee !== null) return this.rejected("transferring");
    return null;
  }

  private rejected(error: RejectReason): Rejected {
    return { error, leader: this.leader };
  }

  private appendOwn(kind: EntryKind, data: Uint8Array): { index: number; term: number } {
    const index = this.log.lastIndex() + 1;
    this.log.append({ term: this.term, index, kind, data });
    if (kind === "conf") this.refreshConf();
    this.broadcastPending = true;
    this.maybeCommit();
    return { index, term: this.term };
  }

  /** Recompute the configuration after the log's tail changed. */
  private refreshConf(): void {
    const c = this.log.confAt(this.log.lastIndex());
    this.conf = c.conf;
    this.confIndex = c.index;
    if (this.role === "leader") this.syncProgress();
  }

  private send(m: Outgoing): void {
    this.push({ ...m, from: this.id, term: this.term } as Message);
  }

  private push(m: Message): void {
    if (AFTER_PERSIST.has(m.type)) this.msgsAfterPersist.push(m);
    else this.msgs.push(m);
  }

  private broadcastAppend(): void {
    for (const id of this.progress.keys()) this.sendAppend(id, true);
  }

  /** Send one append to `to` if its flow allows; returns whether entries went out. */
  private sendAppend(to: NodeId, sendIfEmpty = false): boolean {
    const pr = this.progress.get(to);
    if (!pr || pr.isPaused()) return false;
    const prevIndex = pr.next - 1;
    const prevTerm = this.log.term(prevIndex);
    if (prevTerm === undefined) {
      this.sendSnapshot(to, pr);
      return false;
    }
    if (this.log.missing(pr.next)) {
      // Behind the in-memory window: ready() asks the driver for the entries, fetched() sends them.
      this.fetchWaiters.add(to);
      return false;
    }
    const entries = this.log.slice(pr.next, this.log.lastIndex() + 1, this.cfg.maxAppendBytes);
    if (entries.length === 0 && !sendIfEmpty) return false;
    this.send({ type: "append", to, prevIndex, prevTerm, entries, commit: this.commit, sent: this.now });
    const last = entries[entries.length - 1];
    if (last) pr.sentEntries(last.index);
    else if (pr.state === "probe") pr.probeSent = true;
    return last !== undefined;
  }

  /** Send as many appends as the flow window allows. */
  private sendAppends(to: NodeId): void {
    while (this.sendAppend(to)) {
      // keep filling the in-flight window
    }
  }

  private sendSnapshot(to: NodeId, pr: Progress): void {
    pr.becomeSnapshot(this.snapshotMeta.index);
    this.send({ type: "snapshot", to, snapshot: this.snapshotMeta });
  }

  private sendTimeoutNow(to: NodeId): void {
    this.leaseRevoked = true;
    this.send({ type: "timeout-now", to });
  }

  private broadcastHeartbeat(): void {
    for (const [to, pr] of this.progress) {
      const commit = Math.min(pr.match, this.commit);
      this.send({ type: "heartbeat", to, commit, sent: this.now, read: this.reads.latestRound });
    }
  }

  private handleAppendResponse(m: Extract<Message, { type: "append-resp" }>): void {
    const pr = this.progress.get(m.from);
    // A claim to hold entries this leader never wrote can only come from a broken peer.
    if (!pr || (!m.reject && m.index > this.log.lastIndex())) return;
    pr.recentActive = true;
    if (m.sent > pr.ackedSent) pr.ackedSent = m.sent;
    if (m.reject) {
      if (pr.maybeDecrTo(m.index, this.nextFromHint(m.hintIndex, m.hintTerm))) {
        if (pr.state === "replicate") pr.becomeProbe();
        this.sendAppend(m.from);
      }
      return;
    }
    if (!pr.maybeUpdate(m.index)) return;
    if (pr.state === "probe") pr.becomeReplicate();
    else if (pr.state === "snapshot" && pr.match >= pr.pendingSnapshot) pr.becomeReplicate();
    else if (pr.state === "replicate") pr.freeInflightsTo(m.index);
    if (this.maybeCommit()) this.broadcastPending = true;
    this.sendAppends(m.from);
    if (m.from === this.leadTransferee && pr.match === this.log.lastIndex()) this.sendTimeoutNow(m.from);
  }

  /**
   * Fast backtracking: the follower said its log has term <= hintTerm at hintIndex. The leader's
   * largest index <= hintIndex with a term <= hintTerm is the last possible match point.
   */
  private nextFromHint(hintIndex: number, hintTerm: number): number {
    return this.log.lastAtMost(hintIndex, hintTerm) + 1;
  }

  private handleHeartbeatResponse(m: Extract<Message, { type: "heartbeat-resp" }>): void {
    const pr = this.progress.get(m.from);
    if (!pr) return;
    pr.recentActive = true;
    if (m.sent > pr.ackedSent) pr.ackedSent = m.sent;
    if (pr.match < this.log.lastIndex()) {
      // Behind without progress for two heartbeat intervals while it answers heartbeats: the appends in
      // flight were lost, so look for the match point again. Answers to heartbeats can come often (every
      // ReadIndex round), so the stall is measured in ticks, not in answers.
      if (pr.stallSince === null || pr.match > pr.stallMatch) {
        pr.stallSince = this.now;
        pr.stallMatch = pr.match;
      } else if (pr.state === "replicate" && this.now - pr.stallSince >= 2 * this.cfg.heartbeatTicks) {
        pr.becomeProbe();
        pr.stallSince = null;
      }
      if (pr.state === "probe") {
        pr.probeSent = false;
        this.sendAppend(m.from, true);
      }
    } else {
      pr.stallSince = null;
    }
    if (m.read > pr.readAck) {
      pr.readAck = m.read;
      this.releaseReads();
    }
  }

  private maybeCommit(): boolean {
    if (this.conf.voters.length === 0) return false;
    // This leader's own acknowledgement counts only for what its driver reported durable: its appends left
    // before its own write finished, and a crash before the fsync must not leave a majority-less commit.
    const matches = this.conf.voters.map((v) =>
      v === this.id ? this.log.stable : (this.progress.get(v)?.match ?? 0),
    );
    const q = quorumValue(matches);
    // Only entries of the current term are committed by counting (Figure 8 of the Raft paper).
    if (q <= this.commit || this.log.term(q) !== this.term) return false;
    this.commit = q;
    this.afterLeaderCommit();
    return true;
  }

  private afterLeaderCommit(): void {
    if (this.commit >= this.termStartIndex) {
      for (const r of this.reads.takeDeferred()) this.handleRead(r.ctx, r.from, r.lease);
    }
    if (!this.conf.voters.includes(this.id) && this.commit >= this.confIndex) {
      // This leader's own removal is committed: hand over to the most caught-up voter and step down.
      let best: NodeId | null = null;
      let bestMatch = -1;
      for (const v of this.conf.voters) {
        const match = this.progress.get(v)?.match ?? 0;
        if (match > bestMatch) {
          best = v;
          bestMatch = match;
        }
      }
      if (best !== null && bestMatch === this.log.lastIndex()) this.sendTimeoutNow(best);
      else this.broadcastAppend();
      this.becomeFollower(this.term, null);
    }
  }

  // ---------------------------------------------------------------- replication (follower side)

  private handleAppend(m: Extract<Message, { type: "append" }>): void {
    if (!wellFormed(m)) return;
    if (m.prevIndex < this.commit) {
      // Everything through our commit index matches the leader's log already.
      this.send({
        type: "append-resp",
        to: m.from,
        index: this.commit,
        reject: false,
        hintIndex: 0,
        hintTerm: 0,
        sent: m.sent,
      });
      return;
    }
    if (this.log.term(m.prevIndex) === m.prevTerm) {
      const lastNew = m.prevIndex + m.entries.length;
      const truncatedFrom = this.log.merge(m.entries);
      if (truncatedFrom !== 0 && truncatedFrom <= this.commit)
        throw new Error("truncating committed entries");
      if (truncatedFrom !== 0) this.dropAcksFrom(truncatedFrom);
      if (truncatedFrom !== 0 || m.entries.some((e) => e.kind === "conf")) this.refreshConf();
      if (m.commit > this.commit) this.commit = Math.min(m.commit, lastNew);
      this.send({
        type: "append-resp",
        to: m.from,
        index: lastNew,
        reject: false,
        hintIndex: 0,
        hintTerm: 0,
        sent: m.sent,
      });
      return;
    }
    const hintIndex = this.log.lastAtMost(m.prevIndex, m.prevTerm);
    const hintTerm = this.log.term(hintIndex) ?? 0;
    this.send({
      type: "append-resp",
      to: m.from,
      index: m.prevIndex,
      reject: true,
      hintIndex,
      hintTerm,
      sent: m.sent,
    });
  }

  /**
   * Entries from `index` on were replaced before the write that would have made them durable: waiting acks
   * that promise any of them (to an earlier leader) would promise what never reaches the disk. Acks already
   * handed out with a write are fine: that write holds what they promise.
   */
  private dropAcksFrom(index: number): void {
    this.msgsAfterPersist = this.msgsAfterPersist.filter(
      (m) => m.type !== "append-resp" || m.reject || m.index < index,
    );
  }

  private handleHeartbeat(m: Extract<Message, { type: "heartbeat" }>): void {
    // The leader sends min(match, commit), so our log matches its log through that index.
    const commit = Math.min(m.commit, this.log.lastIndex());
    if (commit > this.commit) this.commit = commit;
    this.send({ type: "heartbeat-resp", to: m.from, sent: m.sent, read: m.read });
  }

  private handleSnapshot(from: NodeId, meta: SnapshotMeta): void {
    if (meta.index <= this.commit) {
      this.send({
        type: "append-resp",
        to: from,
        index: this.commit,
        reject: false,
        hintIndex: 0,
        hintTerm: 0,
        sent: 0,
      });
      return;
    }
    if (this.log.term(meta.index) === meta.term) {
      // We hold the entries it covers: fast-forward the commit index instead of discarding the log.
      this.commit = meta.index;
    } else {
      this.log.restore(meta.index, meta.term, meta.conf);
      this.dropAcksFrom(meta.index + 1);
      this.snapshotMeta = meta;
      this.receivedSnapshot = meta;
      this.commit = meta.index;
      this.handedOff = meta.index;
      this.refreshConf();
    }
    this.send({
      type: "append-resp",
      to: from,
      index: meta.index,
      reject: false,
      hintIndex: 0,
      hintTerm: 0,
      sent: 0,
    });
  }

  // ---------------------------------------------------------------- reads

  private handleRead(ctx: string, from: NodeId, lease: boolean): void {
    if (this.leadTransferee !== null) {
      this.answerRead(ctx, from, "transferring");
      return;
    }
    if (this.commit < this.termStartIndex) {
      // Until the noop commits, this leader's commit index may trail what earlier leaders acknowledged.
      this.reads.defer({ ctx, from, lease });
      return;
    }
    if ((lease && this.leaseValid()) || this.soleVoter()) {
      this.answerRead(ctx, from, this.commit);
      return;
    }
    // Reads batch up: ready() starts one heartbeat round for all that joined since the last Ready.
    this.reads.join({ ctx, from, lease }, this.commit);
  }

  private soleVoter(): boolean {
    return this.conf.voters.length === 1 && this.conf.voters[0] === this.id;
  }

  /** Answer every read whose heartbeat round a quorum has confirmed. */
  private releaseReads(): void {
    const acks = this.conf.voters.map((v) =>
      v === this.id ? this.reads.latestRound : (this.progress.get(v)?.readAck ?? 0),
    );
    for (const r of this.reads.release(quorumValue(acks))) this.answerRead(r.ctx, r.from, r.index);
  }

  private answerRead(ctx: string, from: NodeId, result: number | RejectReason): void {
    if (from === this.id) {
      this.readStates.push(
        typeof result === "number" ? { ctx, index: result } : { ctx, error: result, leader: this.leader },
      );
      return;
    }
    const index = typeof result === "number" ? result : 0;
    const reject = typeof result === "number" ? null : result;
    this.send({ type: "read-index-resp", to: from, ctx, index, reject });
  }

  private hardChanged(): boolean {
    const p = this.prevHard;
    return p.term !== this.term || p.vote !== this.vote || p.commit !== this.commit;
  }

  /**
   * For invariant checks: the term of entry `index` (undefined if compacted or beyond the log), whether the
   * entry is in memory or only on disk. Same index and term means the same entry (log matching).
   */
  termAt(index: number): number | undefined {
    return this.log.term(index);
  }

  /** For tests and invariant checks: the entry at `index` if it is still in memory. */
  entryAt(index: number): Entry | undefined {
    return this.log.entry(index);
  }
}
