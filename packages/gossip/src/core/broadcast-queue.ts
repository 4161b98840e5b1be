import { pack } from "msgpackr";
import type { Message } from "./types.js";

interface QueuedBroadcast {
  key: string;
  message: Message;
  size: number;
  transmits: number;
}

/** No broadcast is smaller than this; once less room is left in a packet, stop looking. */
const MIN_BROADCAST_BYTES = 16;

/**
 * memberlist's TransmitLimitedQueue: broadcasts are piggybacked on outgoing packets, the least-sent first
 * (oldest first among equals), each sent at most `limit(n)` times. A newer broadcast about the same key
 * (a member's name) replaces the older one, which is stale by definition. Bounded: when full, the entries
 * closest to their retransmit limit are dropped first. Items live in one bucket per transmit count, so
 * taking, re-bucketing and replacing are O(1) each.
 */
export class BroadcastQueue {
  private readonly byKey = new Map<string, QueuedBroadcast>();
  private readonly buckets: Map<string, QueuedBroadcast>[] = [];

  constructor(private readonly maxItems: number) {}

  enqueue(key: string, message: Message): void {
    this.remove(key);
    const item = { key, message, size: pack(message).length, transmits: 0 };
    this.byKey.set(key, item);
    this.bucket(0).set(key, item);
    if (this.byKey.size > this.maxItems) this.dropMostTransmitted();
  }

  /** Takes broadcasts fitting in `budget` bytes, counting a transmit for each, dropping spent ones. */
  take(budget: number, limit: number): Message[] {
    if (this.byKey.size === 0) return [];
    const taken: QueuedBroadcast[] = [];
    let remaining = budget;
    for (const bucket of this.buckets) {
      if (!bucket) continue;
      for (const item of bucket.values()) {
        if (item.size > remaining) continue;
        remaining -= item.size;
        taken.push(item);
        if (remaining < MIN_BROADCAST_BYTES) break;
      }
      if (remaining < MIN_BROADCAST_BYTES) break;
    }
    for (const item of taken) {
      this.bucket(item.transmits).delete(item.key);
      item.transmits++;
      if (item.transmits >= limit) this.byKey.delete(item.key);
      else this.bucket(item.transmits).set(item.key, item);
    }
    return taken.map((item) => item.message);
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  size(): number {
    return this.byKey.size;
  }

  private remove(key: string): void {
    const old = this.byKey.get(key);
    if (!old) return;
    this.byKey.delete(key);
    this.bucket(old.transmits).delete(key);
  }

  private dropMostTransmitted(): void {
    for (let t = this.buckets.length - 1; t >= 0; t--) {
      const bucket = this.buckets[t];
      const first = bucket?.keys().next().value;
      if (first !== undefined) {
        this.remove(first);
        return;
      }
    }
  }

  private bucket(transmits: number): Map<string, QueuedBroadcast> {
    let bucket = this.buckets[transmits];
    if (!bucket) {
      bucket = new Map();
      this.buckets[transmits] = bucket;
    }
    return bucket;
  }
}
