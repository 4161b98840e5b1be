import { describe, expect, it } from "vitest";
import { Simulation } from "./simulation.js";

// Fixed seeds keep CI reproducible; `npm run sim -- --seeds N --seed S` explores further.
const SEEDS = 1000;
const BATCHES = 4;
const PER_BATCH = SEEDS / BATCHES;

describe("deterministic cluster simulation", () => {
  for (let b = 0; b < BATCHES; b++) {
    const first = 1 + b * PER_BATCH;
    it(`seeds ${first}..${first + PER_BATCH - 1} keep every safety and liveness property`, {
      timeout: 600_000,
    }, async () => {
      for (let seed = first; seed < first + PER_BATCH; seed++) {
        const res = await new Simulation({ seed, chaosTicks: 100, healTicks: 150 }).run();
        if (!res.ok) {
          const replay = `node --import tsx packages/raft/test/sim/cli.ts --seed ${seed} --seeds 1 --chaos-ticks 100 --heal-ticks 150 --trace 2000`;
          expect.fail(`seed ${seed}: ${res.error}\n${res.trace.slice(-40).join("\n")}\nreplay: ${replay}`);
        }
      }
    });
  }

  it("keeps reads fresh across restarts (seeds a long exploration failed on: a read context reused)", async () => {
    // A restarted server's first read was named as its first read before the restart, and the leader's
    // answer to that old read (a lower index) settled the new one.
    for (const seed of [100038, 202320]) {
      const res = await new Simulation({ seed }).run();
      expect(res.ok, `seed ${seed}: ${res.error}`).toBe(true);
    }
  });

  it("keeps links to members a truncated tail restored (seeds a long exploration failed on)", async () => {
    // A removal appended (not committed) made the driver close the link to the removed member; a new leader's
    // log then took the removal back, and the core counted the member again, but no link came back: the
    // leader kept it in its configuration and never reached it. Since snapshot chunks stopped lingering,
    // 764344331 no longer reaches the fault on the code before the fix; 78573390 still does.
    for (const seed of [764344331, 78573390, 411806277]) {
      const res = await new Simulation({ seed }).run();
      expect(res.ok, `seed ${seed}: ${res.error}`).toBe(true);
    }
  });

  it("commits a new write soon after healing (seed a long exploration failed on: an unbounded uncommitted tail)", async () => {
    // With one entry per round trip to each follower, a leader took writes far faster than it could
    // replicate them; after healing, the first new write waited behind 274 older ones for longer than the
    // liveness bound. The leader now refuses writes past maxUncommittedEntries.
    const res = await new Simulation({ seed: 96000563 }).run();
    expect(res.ok, `seed 96000563: ${res.error}`).toBe(true);
  });

  it("reaches a member first learned from a snapshot (seed a long exploration failed on)", async () => {
    // n1 learned of n4 only by installing a snapshot, so it never saw the conf entry with n4's address; once
    // leader it kept n4 in its configuration without a link, and n4 never received an entry. A snapshot now
    // carries the sender's addresses for its configuration's members.
    const res = await new Simulation({ seed: 100001591 }).run();
    expect(res.ok, `seed 100001591: ${res.error}`).toBe(true);
  });

  it("finishes a snapshot stream started in the quiet period (seed a long exploration failed on)", async () => {
    // Not a fault of Raft but of the model: one chunk of the last snapshot to a lagging learner lingered for
    // 4 s while heartbeats sent after it arrived, which one in-order connection cannot do, and the stream
    // outlasted the quiet period before the final checks. Stream chunks no longer linger.
    const res = await new Simulation({ seed: 114000417 }).run();
    expect(res.ok, `seed 114000417: ${res.error}`).toBe(true);
  });

  it("replays a seed exactly", async () => {
    const a = await new Simulation({ seed: 42, chaosTicks: 60, healTicks: 120 }).run();
    const b = await new Simulation({ seed: 42, chaosTicks: 60, healTicks: 120 }).run();
    expect(a.ok).toBe(true);
    expect(b.stats).toEqual(a.stats);
  });

  it("exercises the interesting paths (guards against a simulator that tests nothing)", async () => {
    const total = {
      leaders: 0,
      writesAcked: 0,
      readsChecked: 0,
      leaseReads: 0,
      snapshotsInstalled: 0,
      confChanges: 0,
      transfers: 0,
      crashes: 0,
    };
    for (let seed = 5000; seed < 5020; seed++) {
      const res = await new Simulation({ seed, chaosTicks: 100, healTicks: 150 }).run();
      expect(res.ok, res.error).toBe(true);
      for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += res.stats[k];
    }
    for (const [k, v] of Object.entries(total)) expect(v, k).toBeGreaterThan(10);
  });
});
