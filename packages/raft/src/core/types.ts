// Public types of the pure Raft core. The core does no I/O: the driver (src/node.ts, or the simulator)
// feeds it ticks and messages, then persists and carries out each Ready it produces.

import type { TermRun } from "./term-runs.js";

export type { TermRun } from "./term-runs.js";

export type NodeId = string;

export type Role = "follower" | "pre-candidate" | "candidate" | "leader";

/** `noop` is the empty entry a new leader appends so it can commit something of its own term. */
export type EntryKind = "normal" | "conf" | "noop";

export interface Entry {
  term: number;
  index: number;
  kind: EntryKind;
  /** For `conf` entries: see `encodeConfEntry` / `decodeConfEntry`. */
  data: Uint8Array;
}

/** Term and vote must be durable before any message that depends on them leaves the node (see Ready). */
export interface HardState {
  term: number;
  vote: NodeId | null;
  commit: number;
}

export interface ConfState {
  voters: NodeId[];
  learners: NodeId[];
}

export interface SnapshotMeta {
  index: number;
  term: number;
  /** The configuration in force at `index`. */
  conf: ConfState;
}

export type ConfChangeOp = "add-learner" | "promote" | "remove";
export interface ConfChange {
  op: ConfChangeOp;
  node: NodeId;
}

/**
 * The answer to a `readIndex(ctx)` call: once the local state machine has applied `index`, a read
 * served from it is linearizable. A rejected read carries `error` and the leader hint instead.
 */
export type ReadState =
  | { ctx: string; index: number }
  | { ctx: string; error: RejectReason; leader: NodeId | null };

interface MessageBase {
  from: NodeId;
  to: NodeId;
  term: number;
}

/**
 * `sent` is the leader's tick clock when it sent an append/heartbeat; followers echo it so the
 * leader can date the freshest quorum acknowledgement (the start of its read lease).
 * `read` is the sequence number of the ReadIndex round a heartbeat confirms (0: none).
 */
export type Message =
  | (MessageBase & { type: "pre-vote" | "vote"; lastIndex: number; lastTerm: number; transfer: boolean })
  | (MessageBase & { type: "pre-vote-resp" | "vote-resp"; reject: boolean })
  | (MessageBase & {
      type: "append";
      prevIndex: number;
      prevTerm: number;
      entries: Entry[];
      commit: number;
      sent: number;
    })
  | (MessageBase & {
      type: "append-resp";
      /** Accepted: the follower's log matches the leader's through `index`. Rejected: the refused prevIndex. */
      index: number;
      reject: boolean;
      /** On rejection: the follower's last index whose term is <= the refused prevTerm, and that term. */
      hintIndex: number;
      hintTerm: number;
      sent: number;
    })
  | (MessageBase & { type: "heartbeat"; commit: number; sent: number; read: number })
  | (MessageBase & { type: "heartbeat-resp"; sent: number; read: number })
  | (MessageBase & {
      type: "snapshot";
      snapshot: SnapshotMeta;
      /**
       * Raft addresses of the snapshot configuration's members, added by the sending driver (the core
       * ignores them): a receiver that learns a member from a snapshot never saw the conf entry that
       * carried its address.
       */
      addresses?: Record<NodeId, string>;
    })
  | (MessageBase & { type: "timeout-now" })
  | (MessageBase & { type: "read-index"; ctx: string; lease: boolean })
  | (MessageBase & {
      type: "read-index-resp";
      ctx: string;
      index: number;
      reject: RejectReason | null;
    });

export type MessageType = Message["type"];

export interface SoftState {
  leader: NodeId | null;
  role: Role;
}

/**
 * One batch of work for the driver. Some of it may be carried out at once, some only after a write:
 * 1. at once, in any order: note `softState`; send `messages`; apply `committed` in order (they are
 *    committed and already durable on this server), hand `readStates` to waiting readers, then call
 *    `advance(ready)`. None of this waits for a write, not even one still in flight from an earlier Ready.
 * 2. if `persist` is set, the Ready carries a write: record `snapshot` (if any; it replaces the whole log),
 *    append `entries` (replacing any durable suffix from entries[0].index), persist `hardState` (if any) -
 *    in one batch, after every earlier write, and fsync; then load the `snapshot` (if any) into the state
 *    machine, send `persistedMessages`, and call `persisted(ready)`.
 * At most one write is outstanding: until persisted() is called, ready() hands out Readys without one, and
 * what needs writing accumulates for the next (group commit). ready() hands its contents over, so tick(),
 * step(), propose() and readIndex() may go on while a write is in flight.
 *
 * Why the early parts are safe: `messages` hold only what promises nothing about this server's disk (a
 * leader's appends and heartbeats, read answers, pre-votes...). What does - an accepted append, a granted
 * vote, a vote request carrying the candidate's own vote - is in `persistedMessages`. A leader sends its
 * appends while it writes the same entries, but counts itself toward a commit only for entries reported by
 * persisted() (etcd's asynchronous storage writes follow the same idea); a leader that crashes before its
 * fsync has therefore counted nobody's acknowledgement that is not on disk. An ack still waiting for its
 * write when a new leader replaces the entries it covers is dropped (it would promise what is never written).
 * `committed` never holds an entry this server has not made durable, so the state machine never runs ahead
 * of the local log. A new commit index alone causes no write; it rides on the next one.
 */
export interface Ready {
  softState?: SoftState;
  /** Send now. */
  messages: Message[];
  /** Apply now, in order. */
  committed: Entry[];
  readStates: ReadState[];
  /** This Ready carries a write; the driver must call persisted(ready) once it is durable. */
  persist: boolean;
  hardState?: HardState;
  entries: Entry[];
  /** A snapshot received from the leader (its data is already on disk): reset the log and state machine to it. */
  snapshot?: SnapshotMeta;
  /** Send only once this Ready's write is durable. */
  persistedMessages: Message[];
  /**
   * Entries the core needs back from storage (they left its in-memory window): read [lo, hi) - stopping once
   * `maxBytes` of payload is reached, but at least one entry - and hand them to `fetched()`. The read may take
   * its time and must not wait for a write in flight (what it asks for is durable already), but must see every
   * compaction done before it (then it may return fewer entries, or none). At most one is outstanding.
   */
  fetch?: LogFetch;
}

/** How much of the durable log the core keeps in memory (the unstable tail is always kept). */
export interface LogCacheLimits {
  maxEntries: number;
  /** Payload bytes. */
  maxBytes: number;
}

/** What the core knows of the log at start, without holding its entries (see RestoreState). */
export interface LogBounds {
  lastIndex: number;
  /** The term of every index after the snapshot, as runs. */
  terms: readonly TermRun[];
  /** Every conf entry after the snapshot, in order. */
  confs: readonly Entry[];
}

export interface LogFetch {
  lo: number;
  hi: number;
  maxBytes: number;
}

export interface RaftConfig {
  id: NodeId;
  /** Minimum election timeout; each timeout is drawn from [electionTicks, electionTicks + jitter). */
  electionTicks: number;
  /**
   * Width of the random part of the election timeout (default electionTicks). Wide enough that two
   * followers seldom time out in the same round trip; every tick more is a tick more of a failover.
   */
  electionJitterTicks?: number;
  /**
   * Base timeout of a pre-candidate's or candidate's round that neither won nor lost (default
   * electionTicks), plus the same jitter. Shorter than the election timeout: there is no live leader to
   * wait out, and a split vote then costs a fraction of an election timeout rather than a whole one.
   */
  electionRetryTicks?: number;
  heartbeatTicks: number;
  /** Injected PRNG in [0, 1): the only source of randomness in the core. */
  random: () => number;
  preVote: boolean;
  checkQuorum: boolean;
  /** Max append messages in flight to one follower in replicate state. */
  maxInflight: number;
  /** Soft cap on entry payload bytes per append message (at least one entry is always sent). */
  maxAppendBytes: number;
  /**
   * A leader refuses a new proposal ("too-many-uncommitted") while this many entries of its log are above
   * the commit index (default: no limit). Without it a leader whose followers hear its heartbeats but take
   * its entries slowly grows an unbounded tail, and once the network recovers every new write waits behind
   * all of it. Membership changes are not refused: they may be what repairs the cluster.
   */
  maxUncommittedEntries?: number;
  /**
   * Lease reads are allowed only with checkQuorum and when this is set (>= 1): the lease lasts
   * electionTicks - leaseDriftTicks ticks after the send time of the freshest quorum-acknowledged
   * append/heartbeat. Why that is safe: with checkQuorum, a server that heard from the leader ignores
   * votes for electionTicks of its own ticks (a restarted server too, from its start), so no rival can be
   * elected before then. The margin must cover one tick of phase difference plus the clock-rate drift
   * between servers over an election timeout. It also assumes the driver delivers ticks by a monotonic
   * clock: after a stall (GC pause, blocked event loop) it must call tick() once per elapsed tick period
   * before stepping anything else - a plain setInterval that fires once late is not enough (RaftNode
   * ticks by `Scheduler.now()` before every input).
   */
  leaseDriftTicks?: number;
  /**
   * How much of the durable log to keep in memory (default DEFAULT_LOG_CACHE): older entries are read back
   * through Ready's `fetch` when a lagging follower or the state machine needs them.
   */
  logCache?: LogCacheLimits;
}

/** The durable state the driver found on disk at start. */
export interface RestoreState {
  hardState: HardState;
  snapshot: SnapshotMeta | null;
  /**
   * The durable log after the snapshot, in order; with `bounds`, only its newest part (possibly none), which
   * must end at bounds.lastIndex.
   */
  entries: Entry[];
  /** The whole log's shape, when `entries` do not hold all of it (storage did not read it all). */
  bounds?: LogBounds;
  /** Index the state machine already reflects durably (defaults to the snapshot index). */
  applied?: number;
}

export type RejectReason =
  | "not-leader"
  | "transferring"
  | "conf-pending"
  | "term-not-committed"
  | "learner-behind"
  | "unknown-node"
  | "invalid-change"
  | "no-leader"
  | "too-many-uncommitted";

export interface Rejected {
  error: RejectReason;
  leader: NodeId | null;
}

export type ProposeResult = { index: number; term: number } | Rejected;

export type ProgressState = "probe" | "replicate" | "snapshot";

export interface ProgressStatus {
  match: number;
  next: number;
  state: ProgressState;
  recentActive: boolean;
  inflight: number;
  pendingSnapshot: number;
}

export interface RaftStatus {
  id: NodeId;
  term: number;
  vote: NodeId | null;
  role: Role;
  leader: NodeId | null;
  commit: number;
  applied: number;
  firstIndex: number;
  lastIndex: number;
  conf: ConfState;
  leadTransferee: NodeId | null;
  /** Leader only: replication progress per other member. */
  progress: Record<NodeId, ProgressStatus> | null;
}
