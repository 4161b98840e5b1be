// Public types of the pure Raft core. The core does no I/O: the driver (src/node.ts, or the simulator)
// feeds it ticks and messages, then persists and carries out each Ready it produces.

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

/** What must be durable before any message of the same Ready leaves the node. */
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
  | (MessageBase & { type: "snapshot"; snapshot: SnapshotMeta })
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
 * One batch of work for the driver, to be carried out in this order:
 * 1. install `snapshot` (if any), append `entries` (replacing any durable suffix from entries[0].index),
 *    persist `hardState` (if any) - and fsync;
 * 2. send `messages`;
 * 3. apply `committed` in order; hand `readStates` to waiting readers;
 * 4. call `advance(ready)`.
 * Readys must be carried out one after another, in the order they were produced. ready() hands its
 * contents over, so tick(), step() and propose() may go on while a Ready is being persisted; the next
 * ready() then holds only what came after. A snapshot in a Ready replaces the state machine before
 * that Ready's `committed` entries (which all follow it) are applied.
 */
export interface Ready {
  softState?: SoftState;
  hardState?: HardState;
  entries: Entry[];
  /** A snapshot received from the leader (its data is already on disk): reset the log and state machine to it. */
  snapshot?: SnapshotMeta;
  committed: Entry[];
  messages: Message[];
  readStates: ReadState[];
}

export interface RaftConfig {
  id: NodeId;
  /** Minimum election timeout; each timeout is drawn from [electionTicks, 2*electionTicks). */
  electionTicks: number;
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
   * Lease reads are allowed only with checkQuorum and when this is set (>= 1): the lease lasts
   * electionTicks - leaseDriftTicks ticks after the send time of the freshest quorum-acknowledged
   * append/heartbeat. Why that is safe: with checkQuorum, a server that heard from the leader ignores
   * votes for electionTicks of its own ticks (a restarted server too, from its start), so no rival can be
   * elected before then. The margin must cover one tick of phase difference plus the clock-rate drift
   * between servers over an election timeout. It also assumes the driver delivers ticks by a monotonic
   * clock: after a stall (GC pause, blocked event loop) it must call tick() once per elapsed tick period
   * before stepping anything else - a plain setInterval that fires once late is not enough (RaftNode
   * ticks by `Timers.now()` before every input).
   */
  leaseDriftTicks?: number;
}

/** The durable state the driver found on disk at start. */
export interface RestoreState {
  hardState: HardState;
  snapshot: SnapshotMeta | null;
  /** The durable log after the snapshot, in order. */
  entries: Entry[];
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
  | "no-leader";

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
