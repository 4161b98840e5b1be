import type { Entry, NodeId, Ready, SnapshotMeta } from "../../src/core/types.js";
import type { SimServer } from "./server.js";
import { hashBytes } from "./state-machine.js";

export class InvariantViolation extends Error {}

function fail(msg: string): never {
  throw new InvariantViolation(msg);
}

interface LogSlot {
  prevTerm: number;
  kind: string;
  dataHash: number;
}

/**
 * Raft's safety properties, checked incrementally as the simulation runs:
 * election safety, log matching, leader completeness, state machine safety.
 */
export class SafetyChecker {
  private readonly leaders = new Map<number, NodeId>();
  /** Every (index, term) slot ever persisted anywhere: same slot => same entry and same previous term. */
  private readonly slots = new Map<string, LogSlot>();
  /** Every applied index: the term and state-machine hash any server must have there. */
  readonly appliedAt = new Map<number, { term: number; hash: number }>();
  maxApplied = 0;

  /** Committed indexes: the entry's term and the term of the leader whose counting committed it. */
  private readonly committed = new Map<number, { term: number; by: number }>();
  /** Per leader (id:term): the commit index already accounted for. */
  private readonly leaderCommit = new Map<string, number>();

  /**
   * Election safety and leader completeness: call after every event that touched `s`.
   * Leader completeness: an entry committed by the leader of term T is in the log of every leader of a term > T.
   */
  observe(s: SimServer, servers: Iterable<SimServer>): void {
    const core = s.core;
    if (!core) return;
    const st = core.status(false);
    if (st.role !== "leader") return;
    const key = `${s.id}:${st.term}`;
    let seen = this.leaderCommit.get(key);
    if (seen === undefined) {
      const known = this.leaders.get(st.term);
      if (known !== undefined && known !== s.id) fail(`two leaders in term ${st.term}: ${known} and ${s.id}`);
      this.leaders.set(st.term, s.id);
      for (const [index, c] of this.committed) {
        if (c.by >= st.term || index < st.firstIndex) continue; // later commits, or covered by its snapshot
        const e = core.entryAt(index);
        if (e?.term !== c.term) {
          fail(
            `leader ${s.id} of term ${st.term} lacks entry ${index} (term ${c.term}) committed in term ${c.by}`,
          );
        }
      }
      seen = st.commit;
    }
    for (let i = seen + 1; i <= st.commit; i++) {
      if (this.committed.has(i)) continue;
      const e = core.entryAt(i);
      if (!e) continue;
      this.committed.set(i, { term: e.term, by: st.term });
      for (const l of servers) {
        const lst = l.core?.status(false);
        if (lst?.role !== "leader" || lst.term <= st.term || i < lst.firstIndex) continue;
        if (l.core!.entryAt(i)?.term !== e.term) {
          fail(`leader ${l.id} of term ${lst.term} lacks entry ${i} committed in term ${st.term}`);
        }
      }
    }
    this.leaderCommit.set(key, st.commit);
  }

  /** Log matching, checked on what actually reached the durable log. */
  persisted(s: SimServer, r: Ready, prevTermOfFirst: number): void {
    let prevTerm = prevTermOfFirst;
    for (const e of r.entries) {
      const key = `${e.index}:${e.term}`;
      const slot: LogSlot = { prevTerm, kind: e.kind, dataHash: hashBytes(2166136261, e.data) };
      const seen = this.slots.get(key);
      if (!seen) this.slots.set(key, slot);
      else if (seen.kind !== slot.kind || seen.dataHash !== slot.dataHash) {
        fail(`log matching: ${s.id} persisted a different entry at index ${e.index} term ${e.term}`);
      } else if (seen.prevTerm !== prevTerm && seen.prevTerm !== -1 && prevTerm !== -1) {
        fail(
          `log matching: ${s.id} has entry ${key} after term ${prevTerm}, elsewhere after ${seen.prevTerm}`,
        );
      }
      prevTerm = e.term;
    }
  }

  /** State machine safety: one entry (and one resulting state) per index across all servers. */
  applied(s: SimServer, e: Entry): void {
    const known = this.appliedAt.get(e.index);
    if (known) {
      if (known.term !== e.term || known.hash !== s.sm.hash) {
        fail(
          `state machine safety: ${s.id} applied index ${e.index} differently (term ${e.term} vs ${known.term})`,
        );
      }
      return;
    }
    this.appliedAt.set(e.index, { term: e.term, hash: s.sm.hash });
    if (e.index > this.maxApplied) this.maxApplied = e.index;
  }

  snapshotInstalled(s: SimServer, meta: SnapshotMeta): void {
    const known = this.appliedAt.get(meta.index);
    if (known && (known.term !== meta.term || known.hash !== s.sm.hash)) {
      fail(
        `state machine safety: ${s.id} installed a snapshot at ${meta.index} that disagrees with applied state`,
      );
    }
  }

  /** The state-machine hash every server must have after applying `index`, if anyone applied it. */
  hashAt(index: number): number | undefined {
    return this.appliedAt.get(index)?.hash;
  }
}
