import { describe, expect, it } from "vitest";
import { suspicionTimeout, wanConfig } from "../../src/index.js";
import { nameOf, type RecordedEvent, SimCluster } from "./cluster.js";

function failuresOf(events: RecordedEvent[], subject: string, after = 0): RecordedEvent[] {
  return events.filter(
    (e) => e.at >= after && e.event.type === "member-failed" && e.event.member.name === subject,
  );
}

function settle(sim: SimCluster, limitMs = 60_000): void {
  const until = sim.now + limitMs;
  while (!sim.converged() && sim.now < until) sim.runFor(1000);
  expect(sim.converged()).toBe(true);
}

describe("simulated cluster", () => {
  it("declares every crashed member dead everywhere within the target time", () => {
    for (const n of [50, 200]) {
      const sim = new SimCluster({ members: n, seed: n });
      sim.bootstrap();
      settle(sim);
      sim.runFor(10_000);
      const victims = [nameOf(3), nameOf(11), nameOf(n - 1)];
      const crashAt = sim.now;
      for (const v of victims) sim.crash(v);
      // One probe cycle to notice, a probe interval to fail, then the minimum suspicion timeout (confirmations
      // from other probers bring it down from the maximum), plus dissemination.
      const target = suspicionTimeout(4, n, 1000) + 5000;
      sim.runFor(target);
      for (const v of victims) {
        for (const observer of sim.live()) expect(sim.stateOf(observer.name, v)).toBe("dead");
      }
      const healthy = sim.events.filter(
        (e) => e.event.type === "member-failed" && !victims.includes(e.event.member.name) && e.at >= crashAt,
      );
      expect(healthy).toEqual([]);
    }
  });

  it("declares no healthy member dead under 10% packet loss (CI seed set)", () => {
    let falsePositives = 0;
    let probesWorth = 0;
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const sim = new SimCluster({ members: 100, seed, loss: 0.1 });
      sim.bootstrap();
      sim.runFor(120_000);
      falsePositives += sim.events.filter((e) => e.event.type === "member-failed").length;
      probesWorth += 100 * 120;
    }
    expect(probesWorth).toBeGreaterThan(0);
    expect(falsePositives).toBe(0);
  });

  it("heals a partition: both sides see each other alive again", () => {
    const n = 60;
    const sim = new SimCluster({ members: n, seed: 42 });
    sim.bootstrap();
    settle(sim);
    const names = [...sim.members.keys()];
    const left = names.slice(0, n / 2);
    const right = names.slice(n / 2);
    sim.split([left, right]);
    sim.runFor(60_000);
    expect(sim.stateOf(left[0] ?? "", right[0] ?? "")).toBe("dead");
    expect(sim.stateOf(right[0] ?? "", left[0] ?? "")).toBe("dead");
    sim.heal();
    settle(sim, 180_000);
  });

  it("refutes a forged death claim: the member stays alive at a higher incarnation", () => {
    const sim = new SimCluster({ members: 20, seed: 3 });
    sim.bootstrap();
    settle(sim);
    const victim = nameOf(5);
    const incarnation = sim.get(victim).core.localMember().incarnation;
    const liar = sim.get(nameOf(9));
    liar.core.receive(nameOf(9), [{ t: "dead", node: victim, incarnation, from: nameOf(9) }], sim.now);
    // The liar's own view now says dead; let it gossip that and the victim refute.
    sim.runFor(20_000);
    for (const observer of sim.live()) expect(sim.stateOf(observer.name, victim)).toBe("alive");
    expect(sim.get(victim).core.localMember().incarnation).toBeGreaterThan(incarnation);
    // Claims about an older incarnation are ignored outright.
    const stale = sim.get(nameOf(1));
    const out = stale.core.receive(
      nameOf(9),
      [{ t: "dead", node: victim, incarnation, from: nameOf(9) }],
      sim.now,
    );
    expect(out.events).toEqual([]);
    expect(sim.stateOf(nameOf(1), victim)).toBe("alive");
  });

  it("rejoins after a restart with incarnation 0 by refuting its old death", () => {
    const sim = new SimCluster({ members: 30, seed: 9 });
    sim.bootstrap();
    settle(sim);
    const victim = nameOf(4);
    sim.crash(victim);
    sim.runFor(30_000);
    expect(sim.stateOf(nameOf(0), victim)).toBe("dead");
    sim.restart(victim, nameOf(0));
    settle(sim, 30_000);
    expect(sim.get(victim).core.localMember().incarnation).toBeGreaterThan(0);
  });

  it("spreads a graceful leave as left, not failed", () => {
    const sim = new SimCluster({ members: 30, seed: 11 });
    sim.bootstrap();
    settle(sim);
    const leaver = nameOf(6);
    const at = sim.now;
    sim.leave(leaver);
    sim.runFor(3000);
    sim.crash(leaver);
    sim.runFor(20_000);
    for (const observer of sim.live()) expect(sim.stateOf(observer.name, leaver)).toBe("left");
    expect(failuresOf(sim.events, leaver, at)).toEqual([]);
  });

  it("carries tag updates with a bumped incarnation", () => {
    const sim = new SimCluster({ members: 30, seed: 12 });
    sim.bootstrap();
    settle(sim);
    const member = sim.get(nameOf(2));
    sim.runFor(0);
    member.core.setTags({ role: "server", dc: "dc1", build: "1.2.3" }, sim.now);
    // setTags only queues; the next gossip rounds carry it.
    sim.runFor(10_000);
    for (const observer of sim.live()) {
      expect(observer.core.member(nameOf(2))?.tags).toEqual({ role: "server", dc: "dc1", build: "1.2.3" });
    }
    const updates = sim.events.filter(
      (e) => e.event.type === "member-update" && e.event.member.name === nameOf(2),
    );
    expect(updates.length).toBe(29);
  });

  it("spreads a user broadcast to every member exactly once", () => {
    const sim = new SimCluster({ members: 50, seed: 13 });
    sim.bootstrap();
    settle(sim);
    sim.get(nameOf(7)).core.broadcast({ name: "deploy", payload: "v2" });
    sim.runFor(10_000);
    const seen = sim.events.filter((e) => e.event.type === "user-message");
    expect(new Set(seen.map((e) => e.observer)).size).toBe(49);
    expect(seen.length).toBe(49);
  });
});

describe("simulated WAN pool", () => {
  it("detects a crashed server at memberlist's WAN profile", () => {
    const n = 20;
    const sim = new SimCluster({ members: n, seed: 5, config: wanConfig(), spreadMs: 150 });
    sim.bootstrap(10_000);
    settle(sim, 120_000);
    sim.crash(nameOf(4));
    sim.runFor(suspicionTimeout(6, n, 5000) + 25_000);
    for (const observer of sim.live()) expect(sim.stateOf(observer.name, nameOf(4))).toBe("dead");
  });
});
