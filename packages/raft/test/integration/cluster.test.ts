import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/core/types.js";
import { NotLeaderError, RaftTimeoutError } from "../../src/node/errors.js";
import type { RaftStorage } from "../../src/storage/raft-storage.js";
import type { ServerTransport } from "../../src/transport/server-transport.js";
import { TestCluster, waitUntil } from "./cluster.js";
import { putCommand } from "./kv-machine.js";

let cluster: TestCluster | undefined;
async function threeNodes(options?: Parameters<typeof TestCluster.create>[1]): Promise<TestCluster> {
  cluster = await TestCluster.create(["a", "b", "c"], options);
  await Promise.all(cluster.ids.map((id) => cluster!.start(id)));
  return cluster;
}

afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** Every running server holds exactly `expected`, and applied each index at most once since it started. */
function expectState(c: TestCluster, expected: Map<string, string>): void {
  for (const [id, machine] of c.machines) {
    if (!c.nodes.has(id)) continue;
    expect(Object.fromEntries(machine.data), `state of ${id}`).toEqual(Object.fromEntries(expected));
    const seen = machine.appliedIndexes;
    expect(
      seen.every((index, k) => k === 0 || index > seen[k - 1]!),
      `apply order on ${id}`,
    ).toBe(true);
  }
}

describe("RaftNode cluster", () => {
  it("elects a leader and replicates concurrent writes to every server", async () => {
    const c = await threeNodes();
    const expected = new Map<string, string>();
    const indexes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        expected.set(`k${i}`, `v${i}`);
        return c.put(`k${i}`, `v${i}`);
      }),
    );
    expect(new Set(indexes).size).toBe(40);
    await c.converged(Math.max(...indexes));
    expectState(c, expected);
    const leader = await c.leader();
    const { storage } = leader.status();
    // Group commit: the 40 concurrent proposals took far fewer than 40 fsynced writes on the leader.
    expect(storage.syncedWrites).toBeLessThan(storage.entriesWritten);
  });

  it("loses nothing acknowledged when followers and the leader are killed and restarted", async () => {
    const c = await threeNodes();
    const expected = new Map<string, string>();
    const write = async (from: number, to: number) => {
      const done = [];
      for (let i = from; i < to; i++) {
        expected.set(`k${i}`, `v${i}`);
        done.push(c.put(`k${i}`, `v${i}`));
      }
      return Math.max(...(await Promise.all(done)));
    };

    await write(0, 20);
    const follower = [...c.nodes.values()].find((n) => !n.isLeader())!.id;
    await c.kill(follower);
    await write(20, 40);
    await c.start(follower);

    const oldLeader = (await c.leader()).id;
    await c.kill(oldLeader);
    const newLeader = await c.leader();
    expect(newLeader.id).not.toBe(oldLeader);
    await write(40, 60);
    await c.start(oldLeader);
    const last = await write(60, 70);

    await c.converged(last);
    expectState(c, expected);
  });

  it("sends votes and append acknowledgements only once what they promise is durable", async () => {
    const c = await threeNodes();
    await c.put("warm", "up");
    const watched = [...c.nodes.values()].filter((n) => !n.isLeader());
    const violations: string[] = [];
    let acks = 0;
    let votes = 0;
    for (const node of watched) {
      // Instrumentation, not a fake: the real storage and transport run; the storage advances its
      // durable tail and hard state only once a write has resolved.
      const { storage, transport } = node as unknown as {
        storage: RaftStorage;
        transport: ServerTransport<Message>;
      };
      const send = transport.send.bind(transport);
      transport.send = (peer, m) => {
        if (m.type === "append-resp" && !m.reject) {
          acks++;
          const durable = storage.lastIndex;
          if (m.index > durable) violations.push(`${node.id} acked ${m.index} with ${durable} durable`);
        }
        if (m.type === "vote-resp" && !m.reject) {
          votes++;
          const { term, vote } = storage.hardState;
          if (term !== m.term || vote !== peer) {
            violations.push(`${node.id} voted for ${peer} in ${m.term} before persisting it`);
          }
        }
        send(peer, m);
      };
    }
    await Promise.all(Array.from({ length: 30 }, (_, i) => c.put(`k${i}`, "v")));
    await c.kill((await c.leader()).id); // the survivors must elect a new leader: votes
    await c.put("after", "election");
    expect(acks).toBeGreaterThan(0);
    expect(votes).toBeGreaterThan(0);
    expect(violations).toEqual([]);
  });

  it("a leader replicates while its own write is in flight, and applies only once that write is durable", async () => {
    const c = await threeNodes();
    await c.put("warm", "up");
    const leader = await c.leader();
    const storageOf = (n: unknown) => (n as { storage: RaftStorage }).storage;
    // Instrumentation, not a fake: the leader's real writes are held at a gate before they start.
    const storage = storageOf(leader);
    const save = storage.save.bind(storage);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    storage.save = async (changes) => {
      if (changes.entries.length > 0) await gate;
      return save(changes);
    };
    const index = leader.status().lastIndex + 1;
    let acknowledged = false;
    const put = leader.propose(putCommand("k", "v")).then(() => {
      acknowledged = true;
    });
    const followers = [...c.nodes.values()].filter((n) => n !== leader);
    await waitUntil(
      () => followers.every((f) => storageOf(f).lastIndex >= index),
      "the followers have the entry on disk",
    );
    // Both followers' acks are a majority without the leader; it commits but does not apply what it lacks.
    await waitUntil(() => leader.status().commit >= index, "the leader commits on the followers' acks");
    await new Promise((r) => setTimeout(r, 50));
    expect(acknowledged).toBe(false);
    expect(leader.appliedIndex).toBeLessThan(index);
    expect(storage.lastIndex).toBeLessThan(index);
    open();
    await put;
    expect(leader.appliedIndex).toBeGreaterThanOrEqual(index);
  });

  it("brings a follower up to date from the entries kept behind a snapshot, without sending it", async () => {
    const c = await threeNodes({ snapshotThreshold: 25, trailingLogs: 200 });
    await c.put("first", "1");
    const lagging = [...c.nodes.values()].find((n) => !n.isLeader())!.id;
    await c.kill(lagging);
    let last = 0;
    for (let i = 0; i < 60; i++) last = await c.put(`k${i % 30}`, `v${i}`);
    const leader = await c.leader();
    await waitUntil(() => leader.status().snapshotIndex > 25, "the leader took a snapshot");
    expect(leader.status().firstIndex).toBe(1);

    await c.start(lagging);
    await c.converged(last);
    expect(c.machines.get(lagging)!.restoredFrom).toBeUndefined();
    expect(c.logs.some((l) => l.node === lagging && l.msg === "installed snapshot from leader")).toBe(false);
  });

  it("with a snapshot interval, checks the threshold on its timer, not after every apply", async () => {
    const c = await threeNodes({ snapshotThreshold: 25, snapshotIntervalMs: 10_000 });
    let last = 0;
    for (let i = 0; i < 60; i++) last = await c.put(`k${i % 30}`, `v${i}`);
    await c.converged(last);
    // Past the threshold twice over, and no snapshot yet: nothing checked it.
    for (const node of c.nodes.values()) expect(node.status().snapshotIndex).toBe(0);
    const armed = c.snapshotChecks.splice(0);
    expect(armed.map((t) => t.node).sort()).toEqual(["a", "b", "c"]);

    for (const t of armed) t.fire();
    await waitUntil(
      () => [...c.nodes.values()].every((n) => n.status().snapshotIndex >= last),
      "every node snapshotted all it applied",
    );
    // One snapshot each covering all 60 writes, where a check after every apply would have taken two.
    for (const machine of c.machines.values()) expect(machine.snapshotsWritten).toBe(1);
    // Each check arms the next; below the threshold since the last snapshot, a check takes none.
    const next = c.snapshotChecks.splice(0);
    expect(next).toHaveLength(3);
    await c.put("one-more", "v");
    // A snapshot starts inside the check, synchronously: a gated machine counts it before any await.
    const releases = [...c.machines.values()].map((m) => m.holdSnapshots());
    for (const t of next) t.fire();
    for (const machine of c.machines.values()) expect(machine.snapshotsHeld).toBe(0);
    for (const release of releases) release();
  });

  it("stop() returns only once a snapshot the node is writing of its own state is written", async () => {
    const c = await threeNodes({ snapshotThreshold: 25 });
    const id = c.ids[0]!;
    const machine = c.machines.get(id)!;
    const release = machine.holdSnapshots();
    for (let i = 0; i < 30; i++) await c.put(`k${i}`, "v");
    await waitUntil(() => machine.snapshotsHeld > 0, `${id} started a snapshot`);
    // The snapshot's writes go on 300 ms into the stop; a stop that returned before them would leave a
    // node still writing into its directory (run 140: the cleanup's rm met ENOTEMPTY).
    setTimeout(release, 300);
    await c.kill(id);
    expect(machine.snapshotsWritten).toBe(1);
  });

  it("brings a follower that missed a compaction up to date with a snapshot", async () => {
    const c = await threeNodes({ snapshotThreshold: 25, trailingLogs: 0 });
    const expected = new Map<string, string>();
    await c.put("first", "1");
    expected.set("first", "1");
    const lagging = [...c.nodes.values()].find((n) => !n.isLeader())!.id;
    await c.kill(lagging);

    let last = 0;
    for (let i = 0; i < 120; i++) {
      expected.set(`k${i % 30}`, `v${i}`);
      last = await c.put(`k${i % 30}`, `v${i}`);
    }
    const leader = await c.leader();
    await waitUntil(() => leader.status().firstIndex > 10, "the leader compacted its log");

    const restarted = await c.start(lagging);
    await c.converged(last);
    expect(c.machines.get(lagging)!.restoredFrom).toBeDefined();
    expect(restarted.status().snapshotIndex).toBeGreaterThan(10);
    expect(c.logs.some((l) => l.node === lagging && l.msg === "installed snapshot from leader")).toBe(true);
    expectState(c, expected);

    // Everyone restarts from its own snapshot plus the log after it.
    await Promise.all(c.ids.map((id) => c.kill(id)));
    await Promise.all(c.ids.map((id) => c.start(id)));
    const next = await c.put("after", "restart");
    expected.set("after", "restart");
    await c.converged(next);
    expectState(c, expected);
  });

  it("serves linearizable reads through readIndex on followers and lease reads on the leader", async () => {
    const c = await threeNodes();
    const index = await c.put("color", "blue");
    const leader = await c.leader();
    const follower = [...c.nodes.values()].find((n) => !n.isLeader())!;
    const readAt = await follower.readIndex();
    expect(readAt).toBeGreaterThanOrEqual(index);
    expect(follower.appliedIndex).toBeGreaterThanOrEqual(readAt);
    expect(c.machines.get(follower.id)!.data.get("color")).toBe("blue");
    expect(await leader.readIndex({ lease: true })).toBeGreaterThanOrEqual(index);
  });

  it("ticks by the monotonic clock: a leader stalled past its lease does not answer a lease read from it", async () => {
    const c = await threeNodes();
    const index = await c.put("color", "blue");
    const leader = await c.leader();
    expect(await leader.readIndex({ lease: true })).toBeGreaterThanOrEqual(index);
    // Its followers gone, the leader's lease still holds for a while; then five election timeouts (tickMs 20 x
    // electionTicks 10) pass for it at once, as after a stall in which the others may have elected someone
    // else. The interval timer has not fired yet.
    for (const f of [...c.nodes.values()].filter((n) => n !== leader)) await c.kill(f.id);
    c.jumpClock(leader.id, 5 * 10 * 20);
    // The elapsed ticks reached the core before the read: the lease has run out, so the read needs a round of
    // heartbeats nobody answers. It fails when CheckQuorum (counting live ticks only) steps the leader down,
    // or, on a machine so busy that those ticks come late, when the read's own wall-clock timeout (two
    // election timeouts) runs out first: either way it is refused, never answered from the expired lease.
    const refused = await leader.readIndex({ lease: true }).then(
      (index) => new Error(`answered ${index} from an expired lease`),
      (err: unknown) => err,
    );
    expect(refused).toSatisfy((e) => e instanceof NotLeaderError || e instanceof RaftTimeoutError);
    await waitUntil(() => leader.status().role !== "leader", "CheckQuorum steps the stalled leader down");
  });

  it("a stall of the leader alone is not taken for a lost quorum", async () => {
    const c = await threeNodes();
    const index = await c.put("color", "blue");
    const leader = await c.leader();
    c.jumpClock(leader.id, 5 * 10 * 20);
    // The stalled time does not count towards CheckQuorum: the leader keeps leading, and a lease read (its
    // lease ran out in the stall) is answered after a round of heartbeats.
    expect(await leader.readIndex({ lease: true })).toBeGreaterThanOrEqual(index);
    expect(leader.isLeader()).toBe(true);
  });

  it("refuses proposals on a follower with the leader's id and address", async () => {
    const c = await threeNodes();
    await c.put("x", "1");
    const leader = await c.leader();
    const follower = [...c.nodes.values()].find((n) => !n.isLeader())!;
    await waitUntil(() => follower.leaderId() === leader.id, "the follower knows the leader");
    const err = await follower.propose(putCommand("y", "2")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotLeaderError);
    expect(err).toMatchObject({ reason: "not-leader", leader: leader.id, leaderAddress: leader.address });
  });

  it("transfers leadership on request", async () => {
    const c = await threeNodes();
    await c.put("x", "1");
    const leader = await c.leader();
    const target = [...c.nodes.values()].find((n) => !n.isLeader())!;
    await leader.transferLeadership(target.id);
    await waitUntil(() => target.isLeader(), "the target leads");
    expect(await c.put("y", "2")).toBeGreaterThan(0);
  });

  it("adds a learner by address, promotes it to voter and removes it", async () => {
    const c = await threeNodes();
    const expected = new Map([["x", "1"]]);
    await c.put("x", "1");
    c.addresses.d = `127.0.0.1:${await (
      async () => {
        const probe = await TestCluster.create(["p"]);
        const port = Number(probe.addresses.p!.split(":")[1]);
        await probe.close();
        return port;
      }
    )()}`;
    // The newcomer knows nobody and has no bootstrap: it waits to be contacted by the leader.
    const d = await c.start("d", { bootstrap: false, knowsPeers: false });
    const leader = await c.leader();
    await leader.addLearner("d", d.address);
    await waitUntil(() => {
      const s = leader.status();
      return (s.progress?.d?.match ?? 0) >= s.commit;
    }, "the leader knows d caught up");
    await leader.promote("d");
    expect(leader.status().conf.voters).toContain("d");
    const index = await c.put("y", "2");
    expected.set("y", "2");
    await c.converged(index);
    expectState(c, expected);

    await leader.remove("d");
    await waitUntil(() => !leader.status().conf.voters.includes("d"), "d is removed");
    await c.kill("d");
    expect(await c.put("z", "3")).toBeGreaterThan(index);
  });
});
