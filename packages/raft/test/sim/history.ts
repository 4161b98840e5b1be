import { InvariantViolation } from "./checker.js";
import type { SmResult } from "./state-machine.js";

/** A server as clients see it: its id and the state its reads are served from. */
interface Served {
  id: string;
  sm: { index: number };
}

/**
 * What clients were told, and the checks on it. A write is acknowledged when the driver resolves its
 * proposal with the state machine's result for that very write. A read is linearizable when the state it is
 * served from (the server's applied index when the driver answers it) covers every write acknowledged and
 * every read completed before the read was invoked; state machine safety (checked elsewhere) makes that
 * state the same everywhere.
 */
export class ClientHistory {
  private writeSeq = 0;
  private readSeq = 0;
  private completedMax = 0;
  /** Highest index of an acknowledged write. */
  ackedMax = 0;
  acked = 0;
  readsChecked = 0;
  leaseReads = 0;

  nextWriteId(): number {
    return ++this.writeSeq;
  }

  /** A proposal of write `id` was answered with `result`. Returns whether that acknowledges the write. */
  writeAnswered(id: number, result: SmResult): boolean {
    if (result.write !== id) {
      throw new InvariantViolation(`write ${id} was answered with the result of write ${result.write}`);
    }
    this.acked++;
    if (result.index > this.ackedMax) this.ackedMax = result.index;
    return true;
  }

  /** A read invoked now; call the returned function when the driver answers it. */
  readInvoked(lease: boolean, invokedAt: number): (s: Served) => void {
    const ctx = `r${++this.readSeq}`;
    const floor = Math.max(this.ackedMax, this.completedMax);
    return (s) => {
      const served = s.sm.index;
      if (served < floor) {
        throw new InvariantViolation(
          `stale ${lease ? "lease " : ""}read ${ctx} on ${s.id}: served state ${served}, but index ${floor} was acknowledged before it was invoked at ${invokedAt}`,
        );
      }
      if (served > this.completedMax) this.completedMax = served;
      this.readsChecked++;
      if (lease) this.leaseReads++;
    };
  }
}
