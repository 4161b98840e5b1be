import type { Logger } from "pino";
import type { ConfState, NodeId } from "../core/types.js";
import { RaftStorage } from "../storage/raft-storage.js";

/** One server of the configuration an operator states after quorum was lost for good. */
export interface RecoveryMember {
  id: NodeId;
  /** host:port of its server (Raft) listener. */
  address: string;
  voter: boolean;
}

/** What a recovery found and did, for the operator's log. */
export interface RecoveryOutcome {
  previous: ConfState;
  conf: ConfState;
  /** The log's tail, kept as it was: the election among survivors compares these. */
  lastIndex: number;
  lastTerm: number;
  /** Commit index this server knew of; entries after it commit once the new leader commits its first entry. */
  commit: number;
  snapshotIndex: number | null;
  confEntriesRewritten: number;
}

/**
 * Outage recovery (the counterpart of hashicorp/raft's RecoverCluster), run on a stopped server's Raft
 * data directory: afterwards the log, whatever it holds, states `members` as the configuration. Every entry
 * stays, committed or not; the survivors elect a leader among themselves, and its first commit commits its
 * whole log. Every survivor must be given the same members.
 */
export async function recoverCluster(
  dataDir: string,
  members: readonly RecoveryMember[],
  logger: Logger,
): Promise<RecoveryOutcome> {
  const conf: ConfState = {
    voters: members.filter((m) => m.voter).map((m) => m.id),
    learners: members.filter((m) => !m.voter).map((m) => m.id),
  };
  const storage = await RaftStorage.open(dataDir, logger);
  try {
    const { restored } = storage;
    const plan = await storage.replaceConfiguration(
      conf,
      Object.fromEntries(members.map((m) => [m.id, m.address])),
    );
    const last = restored.bounds.terms.at(-1) ?? plan.entries.at(-1);
    return {
      previous: plan.previous,
      conf,
      lastIndex: storage.lastIndex,
      lastTerm: last?.term ?? restored.snapshot?.term ?? 0,
      commit: storage.hardState.commit,
      snapshotIndex: restored.snapshot?.index ?? null,
      confEntriesRewritten: plan.hardState ? 0 : plan.entries.length,
    };
  } finally {
    await storage.close();
  }
}
