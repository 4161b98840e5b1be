import type { Logger } from "pino";
import type { BackoffOptions } from "./backoff.js";
import type { TransportTls } from "./tls.js";

/** Where a received snapshot is written. `commit` makes it durable and hands it over; only then is it acked. */
export interface SnapshotSink {
  write(chunk: Uint8Array): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

export interface TransportHandlers<M> {
  /** Raft messages from a peer, in the order it sent them. */
  onMessages(from: string, messages: M[]): void;
  /** Messages for `peer` were dropped: it is not connected or its queue is full. */
  onUnreachable(peer: string): void;
  /**
   * Dialling `peer` was refused: nothing listens at its address any more, so its process has exited (or is
   * stopping). A process that is only stalled still accepts connections (the kernel completes them).
   */
  onRefused?(peer: string): void;
  /** A peer starts streaming the snapshot that `message` announces; returns where to write it. */
  onSnapshot(from: string, message: M, size: number): Promise<SnapshotSink>;
  /** A peer introduced itself with the address it accepts server connections on. */
  onPeerAddress?(peer: string, address: string): void;
}

export interface TransportLimits {
  /** Raft messages queued for one peer within one loop turn before further ones are dropped. */
  maxBatchMessages: number;
  /** Bytes the socket to one peer may hold unsent before Raft messages to it are dropped. */
  maxBufferedBytes: number;
  /** Largest frame accepted. */
  maxFrameBytes: number;
  snapshotChunkBytes: number;
  /** Snapshot chunks sent and not yet written by the receiver. */
  snapshotWindow: number;
  pingIntervalMs: number;
  /** How long an accepted connection may take to send its hello. */
  helloTimeoutMs: number;
  backoff: BackoffOptions;
}

export const defaultLimits: TransportLimits = {
  maxBatchMessages: 4096,
  maxBufferedBytes: 16 * 1024 * 1024,
  maxFrameBytes: 64 * 1024 * 1024,
  snapshotChunkBytes: 512 * 1024,
  snapshotWindow: 4,
  pingIntervalMs: 5000,
  helloTimeoutMs: 10_000,
  backoff: { initialMs: 50, maxMs: 2000 },
};

export interface TransportOptions<M> {
  nodeId: string;
  clusterId: string;
  /** The address peers should dial to reach this server; defaults to host:port as bound (`start`). */
  advertiseAddress?: string;
  logger: Logger;
  /** Shape check for Raft messages arriving from the network. */
  isMessage: (value: unknown) => value is M;
  /** Inbound traffic; may instead be attached later (`ServerTransport.attach`). */
  handlers?: TransportHandlers<M>;
  limits?: Partial<TransportLimits>;
  random?: () => number;
  /** TLS for accepted and dialed connections; absent: plaintext. */
  tls?: TransportTls;
}

/** The URL path server connections use, so the listener can later share a port with other endpoints. */
export const SERVER_PATH = "/cairn/server";
