import fc from "fast-check";
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { MemberStatus } from "../../../src/membership/types.js";
import {
  type DeadServerInput,
  deadServersToRemove,
  trackDeadSince,
} from "../../../src/server/autopilot/dead-servers.js";
import { DeadServerCleanup } from "../../../src/server/leader/dead-server-cleanup.js";
import { DrivenMembership, server } from "./membership-fixture.js";

function input(
  voters: string[],
  statuses: Record<string, MemberStatus>,
  extra: Partial<DeadServerInput> = {},
): DeadServerInput {
  const status = new Map(Object.entries(statuses));
  const all = [...voters, ...(extra.learners ?? [])];
  return {
    selfId: voters[0] ?? "",
    voters,
    learners: [],
    status,
    deadSince: trackDeadSince(new Map(), all, status, 0),
    now: 10_000,
    thresholdMs: 0,
    unknownGraceMs: 0,
    minQuorum: 0,
    ...extra,
  };
}

describe("dead server decision", () => {
  it("removes a failed voter of five and a dead learner; never the leader", () => {
    const removals = deadServersToRemove(
      input(
        ["a", "b", "c", "d", "e"],
        { a: "failed", b: "alive", c: "alive", d: "alive", e: "failed", f: "left" },
        {
          learners: ["f"],
        },
      ),
    );
    expect(removals.sort()).toEqual(["e", "f"]);
  });

  it("waits out the threshold, and forgets a server that came back", () => {
    const status = new Map<string, MemberStatus>([
      ["a", "alive"],
      ["b", "alive"],
      ["c", "failed"],
    ]);
    let since = trackDeadSince(new Map(), ["a", "b", "c"], status, 1_000);
    const base = {
      selfId: "a",
      voters: ["a", "b", "c"],
      learners: [],
      status,
      minQuorum: 0,
      thresholdMs: 5_000,
      unknownGraceMs: 0,
    };
    expect(deadServersToRemove({ ...base, deadSince: since, now: 5_999 })).toEqual([]);
    since = trackDeadSince(since, ["a", "b", "c"], status, 5_999);
    expect(since.get("c")).toBe(1_000);
    expect(deadServersToRemove({ ...base, deadSince: since, now: 6_000 })).toEqual(["c"]);
    status.set("c", "alive");
    since = trackDeadSince(since, ["a", "b", "c"], status, 6_000);
    expect(since.has("c")).toBe(false);
  });

  it("removes only a minority of the voters, oldest dead first", () => {
    const status = new Map<string, MemberStatus>([
      ["a", "alive"],
      ["b", "failed"],
      ["c", "failed"],
      ["d", "failed"],
      ["e", "alive"],
    ]);
    const deadSince = new Map([
      ["b", 300],
      ["c", 100],
      ["d", 200],
    ]);
    const removals = deadServersToRemove({
      selfId: "a",
      voters: ["a", "b", "c", "d", "e"],
      learners: [],
      status,
      deadSince,
      now: 1_000,
      thresholdMs: 0,
      unknownGraceMs: 0,
      minQuorum: 0,
    });
    expect(removals).toEqual(["c", "d"]);
  });

  it("keeps min_quorum voters", () => {
    const statuses = { a: "alive", b: "alive", c: "alive", d: "failed", e: "failed" } as const;
    expect(deadServersToRemove(input(["a", "b", "c", "d", "e"], statuses, { minQuorum: 4 }))).toEqual(["d"]);
    expect(deadServersToRemove(input(["a", "b", "c", "d", "e"], statuses, { minQuorum: 5 }))).toEqual([]);
  });

  it("removes nobody from a two-voter cluster", () => {
    expect(deadServersToRemove(input(["a", "b"], { a: "alive", b: "failed" }))).toEqual([]);
  });

  it("gives a server gossip never listed the grace period before the threshold applies", () => {
    const early = input(["a", "b", "c"], { a: "alive", b: "alive" }, { unknownGraceMs: 60_000, now: 0 });
    expect(deadServersToRemove(early)).toEqual([]);
    expect(deadServersToRemove({ ...early, now: 60_000 })).toEqual(["c"]);
  });

  it("counts a server unknown to gossip as dead, one still leaving as not", () => {
    const removals = deadServersToRemove(
      input(["a", "b", "c", "d", "e"], { a: "alive", b: "alive", c: "leaving" }),
    );
    expect(removals.sort()).toEqual(["d", "e"]);
  });

  it("always leaves a majority of the current voters and at least min_quorum (property)", () => {
    const statusArb = fc.constantFrom<MemberStatus>("alive", "failed", "left", "leaving", "none");
    fc.assert(
      fc.property(
        fc.array(statusArb, { minLength: 1, maxLength: 9 }),
        fc.array(statusArb, { maxLength: 3 }),
        fc.nat(9),
        (voterStatus, learnerStatus, minQuorum) => {
          const voters = voterStatus.map((_, i) => `v${i}`);
          const learners = learnerStatus.map((_, i) => `l${i}`);
          const status = new Map<string, MemberStatus>([
            ...voterStatus.map((s, i) => [`v${i}`, s] as const),
            ...learnerStatus.map((s, i) => [`l${i}`, s] as const),
          ]);
          const removals = deadServersToRemove({
            selfId: "v0",
            voters,
            learners,
            status,
            deadSince: trackDeadSince(new Map(), [...voters, ...learners], status, 0),
            now: 0,
            thresholdMs: 0,
            unknownGraceMs: 0,
            minQuorum,
          });
          const left = voters.filter((v) => !removals.includes(v)).length;
          expect(removals).not.toContain("v0");
          expect(left).toBeGreaterThan(voters.length / 2);
          if (left < voters.length) expect(left).toBeGreaterThanOrEqual(minQuorum);
          for (const id of removals) expect(["failed", "left", "none"]).toContain(status.get(id));
        },
      ),
    );
  });
});

describe("dead server cleanup (leader duty)", () => {
  function setup(cleanupDeadServers = true) {
    const membership = new DrivenMembership();
    for (const name of ["a", "b", "c"]) membership.set(server(name, `10.0.0.${name.charCodeAt(0)}`));
    const conf = { voters: ["id-a", "id-b", "id-c"], learners: [] as string[] };
    let now = 0;
    const removed: string[] = [];
    const cleanup = new DeadServerCleanup({
      selfId: () => "id-a",
      membership,
      raft: {
        membership: () => ({ ...conf, address: () => undefined }),
        join: async () => {},
        remove: async (id) => {
          removed.push(id);
          conf.voters = conf.voters.filter((v) => v !== id);
        },
      },
      serverNames: () => new Map(),
      settings: () => ({ cleanupDeadServers, deadServerCleanupThresholdMs: 30_000, minQuorum: 0 }),
      log: pino({ level: "silent" }),
      now: () => now,
      checkEveryMs: 1_000,
    });
    return { membership, cleanup, removed, conf, advance: (ms: number) => (now += ms) };
  }

  it("removes a server failed for the threshold", async () => {
    const { membership, cleanup, removed, conf, advance } = setup();
    membership.status("c", "failed");
    await cleanup.check();
    advance(29_999);
    await cleanup.check();
    expect(removed).toEqual([]);
    advance(1);
    await cleanup.check();
    expect(removed).toEqual(["id-c"]);
    expect(conf.voters).toEqual(["id-a", "id-b"]);
  });

  it("does nothing with cleanup_dead_servers off, or while gossip does not list the leader as alive", async () => {
    const off = setup(false);
    off.membership.status("c", "failed");
    await off.cleanup.check();
    off.advance(60_000);
    await off.cleanup.check();
    expect(off.removed).toEqual([]);

    const blind = setup();
    blind.membership.status("c", "failed");
    blind.membership.status("a", "failed");
    await blind.cleanup.check();
    blind.advance(60_000);
    await blind.cleanup.check();
    expect(blind.removed).toEqual([]);
  });
});
