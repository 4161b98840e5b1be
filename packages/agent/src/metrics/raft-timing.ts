import type { Metrics } from "./registry.js";

/** What a server reports of its Raft's timing (CairnServer's events). */
export interface RaftTimingSource {
  on(event: "raftCommitted", listener: (entries: number, latencyMs: number) => void): unknown;
  on(event: "raftFsynced", listener: (ms: number) => void): unknown;
}

/**
 * Raft timing under Consul's names: `consul.raft.commitTime` (proposal on the leader to commit, ms, one sample
 * per batch), `consul.raft.commitNumLogs` (entries in that batch) and `consul.raft.fsync` (one log write).
 */
export function meterRaft(source: RaftTimingSource, metrics: Metrics): void {
  source.on("raftCommitted", (entries, latencyMs) => {
    metrics.addSample("consul.raft.commitTime", latencyMs);
    metrics.addSample("consul.raft.commitNumLogs", entries);
  });
  source.on("raftFsynced", (ms) => metrics.addSample("consul.raft.fsync", ms));
}
