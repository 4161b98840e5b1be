import type { Entry, ReadState } from "../../src/core/types.js";
import { InvariantViolation } from "./checker.js";
import type { SimServer } from "./server.js";
import { decodeWrite } from "./state-machine.js";

interface Write {
  id: number;
  node: string;
  inc: number;
  term: number;
}

interface Read {
  ctx: string;
  node: string;
  inc: number;
  invokedAt: number;
  /** Every write acknowledged and every read completed before invocation: a linearizable answer includes it. */
  floor: number;
  lease: boolean;
  index: number;
}

/**
 * What clients were told, and the checks on it. A write is acknowledged when the server that accepted
 * it applies that very entry (same index, term and payload). A read is linearizable when the state it is
 * served from (the server's applied index) covers every write acknowledged and every read completed
 * before the read was invoked; state machine safety (checked elsewhere) makes that state the same everywhere.
 */
export class ClientHistory {
  private writeSeq = 0;
  private readSeq = 0;
  private readonly writes = new Map<string, Write>();
  private readonly reads = new Map<string, Read>();
  private readonly waiting = new Map<string, Read[]>();
  private completedMax = 0;
  /** Highest index of an acknowledged write. */
  ackedMax = 0;
  acked = 0;
  readsChecked = 0;
  leaseReads = 0;

  nextWriteId(): number {
    return ++this.writeSeq;
  }

  writeAccepted(s: SimServer, id: number, index: number, term: number): void {
    this.writes.set(`${s.id}:${index}`, { id, node: s.id, inc: s.incarnation, term });
  }

  /** Returns a context for the read, registered as invoked now. */
  readInvoked(s: SimServer, now: number, lease: boolean): string {
    const ctx = `r${++this.readSeq}`;
    const floor = Math.max(this.ackedMax, this.completedMax);
    this.reads.set(ctx, { ctx, node: s.id, inc: s.incarnation, invokedAt: now, floor, lease, index: 0 });
    return ctx;
  }

  /** `s` applied `e`: acknowledge its write, serve reads that waited for it. Returns whether a write was acked. */
  applied(s: SimServer, e: Entry): boolean {
    const key = `${s.id}:${e.index}`;
    const w = this.writes.get(key);
    let acked = false;
    if (w) {
      this.writes.delete(key);
      if (w.inc === s.incarnation && w.term === e.term && decodeWrite(e) === w.id) {
        acked = true;
        this.acked++;
        if (e.index > this.ackedMax) this.ackedMax = e.index;
      }
    }
    const waiting = this.waiting.get(s.id);
    if (waiting?.some((r) => r.index <= s.sm.index)) {
      this.waiting.set(
        s.id,
        waiting.filter((r) => r.index > s.sm.index),
      );
      for (const r of waiting) if (r.index <= s.sm.index) this.serve(s, r);
    }
    return acked;
  }

  readState(s: SimServer, rs: ReadState): void {
    const r = this.reads.get(rs.ctx);
    if (!r || r.node !== s.id || r.inc !== s.incarnation) return;
    this.reads.delete(rs.ctx);
    if ("error" in rs) return;
    r.index = rs.index;
    if (s.sm.index >= rs.index) this.serve(s, r);
    else {
      const list = this.waiting.get(s.id) ?? [];
      list.push(r);
      this.waiting.set(s.id, list);
    }
  }

  /** Reads waiting on a crashed server are never answered. */
  crashed(s: SimServer): void {
    this.waiting.delete(s.id);
  }

  private serve(s: SimServer, r: Read): void {
    const served = s.sm.index;
    if (served < r.floor) {
      throw new InvariantViolation(
        `stale ${r.lease ? "lease " : ""}read ${r.ctx} on ${s.id}: served state ${served}, but index ${r.floor} was acknowledged before it was invoked at ${r.invokedAt}`,
      );
    }
    if (served > this.completedMax) this.completedMax = served;
    this.readsChecked++;
    if (r.lease) this.leaseReads++;
  }
}
