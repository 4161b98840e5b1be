import type { Entry, Message, NodeId } from "../../src/core/types.js";
import type { SimServer } from "./sim-server.js";
import { durableEntryTerm, durableLast } from "./sim-storage.js";
import { hashBytes, type SmState } from "./state-machine.js";

export class InvariantViolation extends Error {}

function fail(msg: string): never {
  throw new InvariantViolation(msg);
}

interface LogSlot {
  prevTerm: number;
  kind: string;
  dataHash: number;
}

/** Whether `s` has entry (index, term) on disk, or a snapshot covering it. */
function durablyHolds(s: SimServer, index: number, term: number): boolean {
  const d = s.durable;
  if (index <= (d.snapshot?.meta.index ?? 0)) return true;
  return durableEntryTerm(d, index) === term;
}

/**
 * Raft's safety properties, checked incrementally as the simulation runs: election safety, log matching,
 * leader completeness, state machine safety; and the durability they rest on: a commit is on the disks of
 * a majority, and nothing that promises durable state is sent before that state is on disk.
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
        if (core.termAt(index) !== c.term) {
          fail(
            `leader ${s.id} of term ${st.term} lacks entry ${index} (term ${c.term}) committed in term ${c.by}`,
          );
        }
      }
      seen = st.commit;
    }
    const all = [...servers];
    for (let i = seen + 1; i <= st.commit; i++) {
      const term = core.termAt(i);
      if (term === undefined) continue;
      const holding = st.conf.voters.filter((v) => {
        const server = all.find((x) => x.id === v);
        return server !== undefined && durablyHolds(server, i, term);
      });
      if (holding.length <= st.conf.voters.length / 2) {
        fail(
          `leader ${s.id} of term ${st.term} committed ${i} held durably only by [${holding}] of [${st.conf.voters}]`,
        );
      }
      if (this.committed.has(i)) continue;
      this.committed.set(i, { term, by: st.term });
      for (const l of servers) {
        const lst = l.core?.status(false);
        if (lst?.role !== "leader" || lst.term <= st.term || i < lst.firstIndex) continue;
        if (l.core!.termAt(i) !== term) {
          fail(`leader ${l.id} of term ${lst.term} lacks entry ${i} committed in term ${st.term}`);
        }
      }
    }
    this.leaderCommit.set(key, st.commit);
  }

  /**
   * What a message promises is on the sender's disk before it leaves: the entries an append acknowledges, a
   * granted vote, a candidate's vote for itself (a later term on disk makes the promise moot: that server
   * never again votes in the earlier one).
   */
  sent(s: SimServer, m: Message): void {
    const hard = s.durable.hard;
    if (m.type === "append-resp" && !m.reject && durableLast(s.durable) < m.index) {
      fail(`${s.id} acknowledged ${m.index} to ${m.to} with only ${durableLast(s.durable)} on disk`);
    }
    const vote = (m.type === "vote-resp" && !m.reject) || m.type === "vote";
    const votedFor = m.type === "vote" ? m.from : m.to;
    if (vote && hard.term < m.term)
      fail(`${s.id} sent ${m.type} of term ${m.term} with term ${hard.term} on disk`);
    if (vote && hard.term === m.term && hard.vote !== votedFor) {
      fail(`${s.id} sent ${m.type} for ${votedFor} in term ${m.term} with vote ${hard.vote} on disk`);
    }
  }

  /** Log matching, checked on what actually reached the durable log. */
  persisted(s: SimServer, entries: readonly Entry[], prevTermOfFirst: number): void {
    let prevTerm = prevTermOfFirst;
    for (const e of entries) {
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
  applied(s: SimServer, index: number, term: number): void {
    const known = this.appliedAt.get(index);
    if (known) {
      if (known.term !== term || known.hash !== s.sm.hash) {
        fail(
          `state machine safety: ${s.id} applied index ${index} differently (term ${term} vs ${known.term})`,
        );
      }
      return;
    }
    this.appliedAt.set(index, { term, hash: s.sm.hash });
    if (index > this.maxApplied) this.maxApplied = index;
  }

  /** A state machine restored from a snapshot must be the state every server had at that index. */
  restored(s: SimServer, sm: SmState): void {
    const known = this.appliedAt.get(sm.index);
    if (sm.index > 0 && known?.hash !== sm.hash) {
      fail(
        `state machine safety: ${s.id} restored a snapshot at ${sm.index} that disagrees with applied state`,
      );
    }
  }

  /** The state-machine hash every server must have after applying `index`, if anyone applied it. */
  hashAt(index: number): number | undefined {
    return this.appliedAt.get(index)?.hash;
  }
}
