import type { RaftNodeStatus } from "@cairn/raft";
import { describe, expect, it } from "vitest";
import { HealthMonitor } from "../../../src/server/autopilot/health-monitor.js";
import {
  failureTolerance,
  isServerHealthy,
  type ServerObservation,
} from "../../../src/server/autopilot/server-health.js";
import {
  configurationView,
  effectiveSettings,
  specFromSettings,
} from "../../../src/server/autopilot/settings.js";
import { DrivenMembership, server } from "./membership-fixture.js";

const THRESHOLDS = { lastContactThresholdMs: 200, maxTrailingLogs: 250 };
const LEADER = { term: 3, lastIndex: 1_000 };

const follower = (extra: Partial<ServerObservation> = {}): ServerObservation => ({
  id: "b",
  name: "b",
  address: "10.0.0.2:8300",
  serfStatus: "alive",
  version: "1.15.0",
  leader: false,
  voter: true,
  lastContactMs: 50,
  lastTerm: 3,
  lastIndex: 990,
  ...extra,
});

describe("autopilot server health", () => {
  it("is healthy when alive, recently in contact, on the leader's term and caught up", () => {
    expect(isServerHealthy(follower(), LEADER, THRESHOLDS)).toBe(true);
    expect(isServerHealthy(follower({ serfStatus: "failed" }), LEADER, THRESHOLDS)).toBe(false);
    expect(isServerHealthy(follower({ lastContactMs: 201 }), LEADER, THRESHOLDS)).toBe(false);
    expect(isServerHealthy(follower({ lastTerm: 2 }), LEADER, THRESHOLDS)).toBe(false);
    expect(isServerHealthy(follower({ lastIndex: 749 }), LEADER, THRESHOLDS)).toBe(false);
    expect(isServerHealthy(follower({ lastIndex: 750 }), LEADER, THRESHOLDS)).toBe(true);
  });

  it("tolerates as many failures as there are healthy voters beyond a quorum", () => {
    const voters = (healthy: number, total: number) =>
      Array.from({ length: total }, (_, i) => ({ voter: true, healthy: i < healthy }));
    expect(failureTolerance(voters(5, 5))).toBe(2);
    expect(failureTolerance(voters(4, 5))).toBe(1);
    expect(failureTolerance(voters(3, 3))).toBe(1);
    expect(failureTolerance(voters(2, 3))).toBe(0);
    expect(failureTolerance(voters(1, 3))).toBe(0);
    expect(failureTolerance([...voters(3, 3), { voter: false, healthy: true }])).toBe(1);
  });
});

function leaderStatus(bActive = true): RaftNodeStatus {
  const progress = (match: number, recentActive: boolean) => ({
    match,
    next: match + 1,
    state: "replicate" as const,
    recentActive,
    inflight: 0,
    pendingSnapshot: 0,
  });
  return {
    id: "id-a",
    term: 4,
    vote: "id-a",
    role: "leader",
    leader: "id-a",
    commit: 100,
    applied: 100,
    firstIndex: 1,
    lastIndex: 100,
    conf: { voters: ["id-a", "id-b", "id-c"], learners: ["id-d"] },
    leadTransferee: null,
    progress: {
      "id-b": progress(100, bActive),
      "id-c": progress(40, false),
      "id-d": progress(100, true),
    },
    snapshotIndex: 0,
    connected: ["id-b", "id-d"],
    storage: { syncedWrites: 0, entriesWritten: 0 },
  };
}

describe("autopilot health monitor", () => {
  it("reports each Raft server with gossip status, contact, term and stability", () => {
    const membership = new DrivenMembership();
    for (const [name, host] of [
      ["a", "10.0.0.1"],
      ["b", "10.0.0.2"],
      ["c", "10.0.0.3"],
      ["d", "10.0.0.4"],
    ] as const)
      membership.set(server(name, host));
    membership.status("c", "failed");
    let now = Date.parse("2026-01-01T00:00:00Z");
    let status = leaderStatus();
    const monitor = new HealthMonitor({
      raft: () => ({ status: () => status, addressOf: (id) => `${id}:8300` }),
      membership,
      serverNames: () => new Map(),
      thresholds: () => THRESHOLDS,
      now: () => now,
      sampleEveryMs: 100,
    });
    const first = monitor.report();
    // b stops answering: its last contact ages from here.
    status = leaderStatus(false);
    now += 150;
    const report = monitor.report();
    expect(report.Healthy).toBe(false);
    // Voters a and b healthy, c failed: two healthy of three voters, a quorum of two, nothing to spare.
    expect(report.FailureTolerance).toBe(0);
    const byId = Object.fromEntries(report.Servers.map((s) => [s.ID, s]));
    expect(byId["id-a"]).toMatchObject({
      Name: "a",
      Address: "id-a:8300",
      SerfStatus: "alive",
      Version: "1.15.0",
      Leader: true,
      LastContact: "0s",
      LastTerm: 4,
      LastIndex: 100,
      Healthy: true,
      Voter: true,
    });
    expect(byId["id-b"]).toMatchObject({
      Leader: false,
      LastContact: "150ms",
      LastTerm: 4,
      Healthy: true,
      Voter: true,
    });
    expect(byId["id-c"]).toMatchObject({ SerfStatus: "failed", LastTerm: 0, Healthy: false, Voter: true });
    expect(byId["id-d"]).toMatchObject({ Healthy: true, Voter: false });
    // Unchanged health keeps the time it was first seen; it is an RFC 3339 time.
    expect(byId["id-b"]?.StableSince).toBe(first.Servers[1]?.StableSince);
    expect(byId["id-b"]?.StableSince).toBe("2026-01-01T00:00:00.000Z");

    now += 100;
    expect(monitor.report().Servers.find((s) => s.ID === "id-b")?.Healthy).toBe(false);
  });

  it("without gossip, counts connected servers as alive", () => {
    const monitor = new HealthMonitor({
      raft: () => ({ status: () => leaderStatus(), addressOf: () => undefined }),
      serverNames: () => new Map([["id-b", "node-b"]]),
      thresholds: () => THRESHOLDS,
      now: () => 0,
      sampleEveryMs: 100,
    });
    const servers = monitor.report().Servers;
    expect(servers.map((s) => [s.ID, s.Name, s.SerfStatus])).toEqual([
      ["id-a", "", "alive"],
      ["id-b", "node-b", "alive"],
      ["id-c", "", "failed"],
      ["id-d", "", "alive"],
    ]);
  });
});

describe("autopilot configuration", () => {
  const agent = {
    cleanupDeadServers: true,
    lastContactThresholdMs: 200,
    maxTrailingLogs: 250,
    minQuorum: 0,
    serverStabilizationTimeMs: 10_000,
    deadServerCleanupThresholdMs: 30_000,
  };

  it("is the agent's settings until one is stored, shown with Go durations", () => {
    expect(effectiveSettings(undefined, agent)).toBe(agent);
    expect(configurationView(undefined, agent)).toEqual({
      CleanupDeadServers: true,
      LastContactThreshold: "200ms",
      MaxTrailingLogs: 250,
      MinQuorum: 0,
      ServerStabilizationTime: "10s",
      RedundancyZoneTag: "",
      DisableUpgradeMigration: false,
      UpgradeVersionTag: "",
      CreateIndex: 0,
      ModifyIndex: 0,
    });
  });

  it("once stored, is what autopilot acts on; the dead server threshold stays the agent's", () => {
    const stored = {
      ...specFromSettings(agent),
      CleanupDeadServers: false,
      LastContactThresholdNs: 1_500_000,
      MinQuorum: 3,
      CreateIndex: 5,
      ModifyIndex: 9,
    };
    expect(effectiveSettings(stored, agent)).toEqual({
      ...agent,
      cleanupDeadServers: false,
      lastContactThresholdMs: 1.5,
      minQuorum: 3,
    });
    expect(configurationView(stored, agent)).toMatchObject({
      LastContactThreshold: "1.5ms",
      MinQuorum: 3,
      CreateIndex: 5,
      ModifyIndex: 9,
    });
  });
});
