import { describe, expect, it } from "vitest";
import { suspicionDuration } from "../src/core/suspicion.js";
import {
  lanConfig,
  Membership,
  pushPullScale,
  retransmitLimit,
  suspicionTimeout,
  wanConfig,
} from "../src/index.js";

describe("memberlist's scaling formulas", () => {
  it("scale suspicion, retransmits and push-pull with cluster size", () => {
    expect(suspicionTimeout(4, 1, 1000)).toBe(4000);
    expect(suspicionTimeout(4, 100, 1000)).toBe(8000);
    expect(suspicionTimeout(4, 1000, 1000)).toBe(12000);
    expect(retransmitLimit(4, 3)).toBe(4);
    expect(retransmitLimit(4, 100)).toBe(12);
    expect(pushPullScale(30_000, 32)).toBe(30_000);
    expect(pushPullScale(30_000, 33)).toBe(60_000);
    expect(pushPullScale(30_000, 1000)).toBe(180_000);
  });

  it("shrinks the suspicion timeout from max to min as confirmations arrive", () => {
    expect(suspicionDuration(0, 2, 8000, 48000)).toBe(48000);
    const one = suspicionDuration(1, 2, 8000, 48000);
    expect(one).toBeLessThan(48000);
    expect(one).toBeGreaterThan(8000);
    expect(suspicionDuration(2, 2, 8000, 48000)).toBe(8000);
    expect(suspicionDuration(0, 0, 8000, 48000)).toBe(8000);
  });

  it("has the WAN profile's slower probes", () => {
    expect(wanConfig()).toMatchObject({
      probeInterval: 5000,
      probeTimeout: 3000,
      suspicionMult: 6,
      gossipNodes: 4,
    });
    expect(lanConfig()).toMatchObject({ probeInterval: 1000, probeTimeout: 500, indirectChecks: 3 });
  });
});

describe("membership state rules", () => {
  function pair() {
    const a = new Membership({ name: "a", address: "a", config: lanConfig(), random: () => 0.5, now: 0 });
    a.receive("b", [{ t: "alive", node: "b", address: "b", incarnation: 5, tags: {} }], 0);
    return a;
  }

  it("ignores suspect and dead claims about an older incarnation", () => {
    const a = pair();
    expect(a.receive("c", [{ t: "dead", node: "b", incarnation: 4, from: "c" }], 1).events).toEqual([]);
    a.receive("c", [{ t: "suspect", node: "b", incarnation: 4, from: "c" }], 1);
    expect(a.member("b")?.state).toBe("alive");
  });

  it("refutes claims about itself with a higher incarnation", () => {
    const a = pair();
    a.receive("c", [{ t: "dead", node: "a", incarnation: 7, from: "c" }], 1);
    expect(a.localMember()).toMatchObject({ state: "alive", incarnation: 8 });
    a.receive("c", [{ t: "suspect", node: "a", incarnation: 8, from: "c" }], 2);
    expect(a.localMember().incarnation).toBe(9);
    expect(a.healthScore()).toBeGreaterThan(0);
  });

  it("only a newer alive revives a dead member; a leave upgrades dead to left", () => {
    const a = pair();
    a.receive("c", [{ t: "dead", node: "b", incarnation: 5, from: "c" }], 1);
    expect(a.member("b")?.state).toBe("dead");
    a.receive("c", [{ t: "alive", node: "b", address: "b", incarnation: 5, tags: {} }], 2);
    expect(a.member("b")?.state).toBe("dead");
    const out = a.receive("b", [{ t: "alive", node: "b", address: "b", incarnation: 6, tags: {} }], 3);
    expect(out.events.map((e) => e.type)).toEqual(["member-join"]);
    a.receive("c", [{ t: "dead", node: "b", incarnation: 6, from: "c" }], 4);
    a.receive("b", [{ t: "dead", node: "b", incarnation: 6, from: "b" }], 5);
    expect(a.member("b")?.state).toBe("left");
  });

  it("merges a push-pull's dead entry as a suspicion only", () => {
    const a = pair();
    a.receive(
      "c",
      [
        {
          t: "push-pull",
          seq: 1,
          reply: false,
          join: false,
          states: [{ node: "b", address: "b", incarnation: 5, state: "dead", tags: {} }],
        },
      ],
      1,
    );
    expect(a.member("b")?.state).toBe("suspect");
  });
});

describe("Lifeguard local health awareness", () => {
  function withPeers() {
    const a = new Membership({ name: "a", address: "a", config: lanConfig(), random: () => 0.1, now: 0 });
    for (const name of ["b", "c", "d", "e"]) {
      a.receive(name, [{ t: "alive", node: name, address: name, incarnation: 1, tags: {} }], 0);
    }
    return a;
  }

  function failOneProbe(a: Membership, nack: boolean): void {
    let now = 0;
    let target: string | undefined;
    let seq = 0;
    for (; now < 5000 && target === undefined; now += 10) {
      for (const { to, packet } of a.tick(now).send) {
        const ping = packet.find((m) => m.t === "ping");
        if (ping?.t === "ping") {
          target = to;
          seq = ping.seq;
        }
      }
    }
    const helpers: string[] = [];
    for (; helpers.length === 0; now += 10) {
      for (const { to, packet } of a.tick(now).send)
        if (packet.some((m) => m.t === "ping-req")) helpers.push(to);
    }
    if (nack) for (const helper of helpers) a.receive(helper, [{ t: "nack", seq }], now);
    a.tick(now + 2000);
    expect(a.member(target ?? "")?.state).toBe("suspect");
  }

  it("raises the health score when helpers stay silent (the fault is probably ours)", () => {
    const a = withPeers();
    failOneProbe(a, false);
    expect(a.healthScore()).toBe(3);
  });

  it("does not blame itself when helpers answer with nacks", () => {
    const a = withPeers();
    failOneProbe(a, true);
    expect(a.healthScore()).toBe(0);
  });
});

describe("reaping", () => {
  it("forgets a failed member after reapFailedAfter and a left one after reapLeftAfter", () => {
    const config = lanConfig({ reapFailedAfter: 3000, reapLeftAfter: 6000 });
    const a = new Membership({ name: "a", address: "a", config, random: () => 0.3, now: 0 });
    for (const name of ["b", "c", "d"]) {
      a.receive(name, [{ t: "alive", node: name, address: name, incarnation: 1, tags: {} }], 0);
    }
    a.receive("d", [{ t: "dead", node: "b", incarnation: 1, from: "d" }], 0);
    a.receive("c", [{ t: "dead", node: "c", incarnation: 1, from: "c" }], 0);
    const reaped: { name: string; at: number }[] = [];
    for (let now = 0; now <= 20_000; now += 100) {
      for (const e of a.tick(now).events)
        if (e.type === "member-reap") reaped.push({ name: e.member.name, at: now });
    }
    // d never answers probes here (no network), so it fails and is reaped too; b and c are what we check.
    const at = (name: string) => reaped.find((r) => r.name === name)?.at ?? Number.NaN;
    expect(at("b")).toBeGreaterThan(3000);
    expect(at("b")).toBeLessThan(10_000);
    expect(at("c")).toBeGreaterThan(6000);
    expect(at("c")).toBeLessThan(13_000);
    expect(a.memberList().map((m) => m.name)).toEqual(["a"]);
  });
});
