import type { Entry, Message, NodeId, RestoreState, SnapshotMeta } from "../core/types.js";
import type { DurableChanges } from "../storage/raft-storage.js";
import type { SnapshotFileInfo } from "../storage/snapshot-files.js";
import type { SnapshotSink } from "../transport/options.js";
import { atTurnEnd } from "./turn-end.js";

export type { DurableChanges, SnapshotFileInfo, SnapshotSink };

/**
 * The driver's ports: everything RaftNode needs of the world, injected, so the same driver runs over LevelDB,
 * websockets and the event loop in production and over simulated disks, network and time in the simulator.
 */

/** A snapshot file being written; it exists under its final name only once `commit` resolved. */
export interface SnapshotWriter {
  write(chunk: Uint8Array): Promise<void>;
  commit(): Promise<SnapshotFileInfo>;
  abort(): Promise<void>;
}

/** What the driver needs of durable state. Nothing it is told is durable before the promise resolves. */
export interface Storage {
  /** What was durable when the store was opened. */
  readonly restored: RestoreState;
  /** The address book as last saved. */
  readonly addresses: Readonly<Record<string, string>>;
  /** The current snapshot and where its file is (what `StateMachine.restore` is given), if any. */
  readonly snapshot: { meta: SnapshotMeta; path: string } | null;
  /** Fsynced log writes and the entries they carried since open (the group-commit ratio). */
  readonly stats: { readonly syncedWrites: number; readonly entriesWritten: number };
  /**
   * Durable entries [lo, hi), at least one if any, stopping once `maxBytes` of payload is reached: the answer
   * to a Ready's `fetch` (the core keeps only part of the log in memory). None if lo was compacted meanwhile.
   */
  entries(lo: number, hi: number, maxBytes: number): Promise<Entry[]>;
  /** Makes one Ready durable in a single batch: hard state, entries, an installed snapshot; then fsyncs. */
  save(changes: DurableChanges): Promise<void>;
  /** Opens a writer for the file of snapshot `meta`, taken locally or received from a peer. */
  createSnapshotWriter(meta: Pick<SnapshotMeta, "index" | "term">): Promise<SnapshotWriter>;
  /** Notes a committed snapshot file from a peer, so a later `save` with its meta can record it. */
  noteReceivedSnapshot(info: SnapshotFileInfo): void;
  /**
   * Records a snapshot taken of the local state machine and drops the log entries through `dropThrough`
   * (at most `meta.index`: entries the snapshot covers may be kept for followers a little behind). A
   * restart starts the log after the snapshot again.
   */
  compact(meta: SnapshotMeta, file: SnapshotFileInfo, dropThrough: number): Promise<void>;
  /** Deletes a finished snapshot file that will not be recorded (a newer snapshot overtook it). */
  discardSnapshotFile(file: SnapshotFileInfo): Promise<void>;
  saveAddresses(addresses: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

/** What the transport tells the driver. */
export interface TransportInbound {
  /** Raft messages from a peer, in the order it sent them. */
  onMessages(from: NodeId, messages: Message[]): void;
  /** Messages for `peer` were dropped: it is not connected or its queue is full. */
  onUnreachable(peer: NodeId): void;
  /** Dialling `peer` was refused: nothing listens at its address any more (its process has exited). */
  onRefused(peer: NodeId): void;
  /** A peer starts streaming the snapshot that `message` announces; returns where to write it. */
  onSnapshot(from: NodeId, message: Message, size: number): Promise<SnapshotSink>;
  /** A peer introduced itself with the address it accepts server connections on. */
  onPeerAddress(peer: NodeId, address: string): void;
}

/** Links to the other servers. Sending never blocks or throws: what cannot go is reported unreachable. */
export interface Transport {
  /** The address peers reach this server at. */
  readonly address: string;
  /** Where inbound traffic goes from now on; before this call it is dropped. */
  attach(inbound: TransportInbound): void;
  /** Adds a peer or updates its address. */
  setPeer(id: NodeId, address: string): void;
  removePeer(id: NodeId): void;
  hasPeer(id: NodeId): boolean;
  peers(): NodeId[];
  isConnected(peer: NodeId): boolean;
  send(peer: NodeId, message: Message): void;
  /** Streams the snapshot file at `path` to `peer`; resolves once the peer has it durably. */
  sendSnapshot(peer: NodeId, message: Message, path: string): Promise<void>;
  close(): Promise<void>;
}

export type TimerHandle = unknown;

/** The driver's only source of time and deferral. `now` is monotonic milliseconds. */
export interface Scheduler {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
  /** Runs `fn` at the end of the current turn (after the running callback), before any timer due later. */
  setImmediate(fn: () => void): void;
}

/** The event loop and the monotonic clock. Timers are unref'd: a driver never holds its process open. */
export const realScheduler: Scheduler = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
  setImmediate: atTurnEnd,
};
