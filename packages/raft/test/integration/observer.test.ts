import { afterEach, describe, expect, it } from "vitest";
import type { RaftObserver } from "../../src/node/commit-timer.js";
import { TestCluster } from "./cluster.js";

let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

interface Seen {
  commits: Array<{ entries: number; ms: number }>;
  fsyncs: number[];
}

function recorder(seen: Seen): RaftObserver {
  return {
    committed: (entries, ms) => seen.commits.push({ entries, ms }),
    fsynced: (ms) => seen.fsyncs.push(ms),
  };
}

describe("RaftNode observer", () => {
  it("reports commit latency of proposals on the leader and the time of each fsynced write", async () => {
    const seen: Record<string, Seen> = {};
    const observers: Record<string, RaftObserver> = {};
    for (const id of ["a", "b", "c"]) {
      seen[id] = { commits: [], fsyncs: [] };
      observers[id] = recorder(seen[id]);
    }
    cluster = await TestCluster.create(["a", "b", "c"], { observers });
    await Promise.all(cluster.ids.map((id) => cluster!.start(id)));
    const leader = await cluster.leader();
    const started = performance.now();
    await Promise.all(Array.from({ length: 20 }, (_, i) => cluster!.put(`k${i}`, `v${i}`)));
    const elapsed = performance.now() - started;

    const onLeader = seen[leader.id]!;
    // Every write was proposed on (one) leader; batches may group several entries into one report.
    expect(onLeader.commits.reduce((n, c) => n + c.entries, 0)).toBe(20);
    for (const c of onLeader.commits) {
      expect(c.entries).toBeGreaterThan(0);
      expect(c.ms).toBeGreaterThanOrEqual(0);
      expect(c.ms).toBeLessThanOrEqual(elapsed);
    }
    // Followers propose nothing, so they time no commits, but they fsync what they append.
    for (const id of cluster.ids.filter((i) => i !== leader.id)) {
      expect(seen[id]!.commits).toEqual([]);
      expect(seen[id]!.fsyncs.length).toBeGreaterThan(0);
    }
    expect(onLeader.fsyncs.length).toBeGreaterThan(0);
    expect(onLeader.fsyncs.every((ms) => ms >= 0 && ms <= elapsed + 5_000)).toBe(true);
  });
});
