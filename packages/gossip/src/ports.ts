import type { Message } from "./core/types.js";
import type { DecodeFailure } from "./transport/frames.js";

/** What a transport hands back to the node it carries packets for. */
export interface TransportHandlers {
  /** A decoded, authenticated packet from the member advertising `from`. */
  packet(from: string, packet: Message[]): void;
  /** Nothing could be delivered to `address` (refused, unresolvable): joins waiting on it give up at once. */
  unreachable(address: string): void;
}

/** Carries gossip packets between members; the ws transport is the network one, tests use a simulated one. */
export interface GossipTransport {
  /** The address others reach this member at. */
  readonly address: string;
  /** Best effort: a packet may be lost, except push-pull, which rides a stream. */
  send(to: string, packet: readonly Message[]): void;
  stats(): TransportStats;
  close(): Promise<void>;
}

export interface TransportStats {
  /** Connections we opened, and connections peers opened to us. */
  outboundConnections: number;
  inboundConnections: number;
  framesSent: number;
  framesReceived: number;
  bytesSent: number;
  bytesReceived: number;
  dropped: Record<DecodeFailure | "queue-full" | "unreachable", number>;
}

/** Zeroed counters: a new transport's, and what a node reports before its transport runs. */
export function emptyTransportStats(): TransportStats {
  return {
    outboundConnections: 0,
    inboundConnections: 0,
    framesSent: 0,
    framesReceived: 0,
    bytesSent: 0,
    bytesReceived: 0,
    dropped: {
      malformed: 0,
      "unknown-version": 0,
      invalid: 0,
      "wrong-key": 0,
      "queue-full": 0,
      unreachable: 0,
    },
  };
}

/** Opens a node's transport when it starts (a network transport binds its port here). */
export type TransportFactory = (handlers: TransportHandlers) => Promise<GossipTransport>;

/** Time as the node sees it: wall-clock milliseconds and one-shot timers (virtual in simulations). */
export interface Scheduler {
  now(): number;
  /** Runs `fn` after `delayMs`; the returned function cancels it. */
  after(delayMs: number, fn: () => void): () => void;
}

/** Largest delay setTimeout honours; longer ones would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemScheduler: Scheduler = {
  now: () => Date.now(),
  after: (delayMs, fn) => {
    const timer = setTimeout(fn, Math.min(Math.max(0, delayMs), MAX_TIMER_MS));
    return () => clearTimeout(timer);
  },
};
