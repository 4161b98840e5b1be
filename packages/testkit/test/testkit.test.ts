import { describe, expect, it } from "vitest";
import { EventQueue, Prng, SimNetwork, VirtualClock } from "../src/index.js";

describe("Prng", () => {
  it("replays from its seed, and forks independent streams", () => {
    const a = new Prng(7);
    const b = new Prng(7);
    expect(Array.from({ length: 5 }, () => a.int(0, 999))).toEqual(
      Array.from({ length: 5 }, () => b.int(0, 999)),
    );
    expect(a.shuffle([1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(a.fork().nextU32()).not.toBe(a.fork().nextU32());
  });
});

describe("EventQueue", () => {
  it("pops by time, ties in insertion order", () => {
    const q = new EventQueue<string>();
    q.push(5, "c");
    q.push(1, "a");
    q.push(5, "d");
    q.push(1, "b");
    expect(q.peekTime()).toBe(1);
    expect([q.pop(), q.pop(), q.pop(), q.pop()].map((e) => e?.item)).toEqual(["a", "b", "c", "d"]);
    expect(q.peekTime()).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("VirtualClock", () => {
  it("runs timers in due order as time is advanced, skipping cancelled ones", () => {
    const clock = new VirtualClock();
    const ran: string[] = [];
    clock.after(20, () => ran.push(`b@${clock.now()}`));
    const cancel = clock.after(10, () => ran.push("cancelled"));
    clock.after(5, () => clock.after(5, () => ran.push(`a@${clock.now()}`)));
    cancel();
    clock.runUntil(15);
    expect(ran).toEqual(["a@10"]);
    expect(clock.now()).toBe(15);
    clock.runFor(100);
    expect(ran).toEqual(["a@10", "b@20"]);
  });
});

describe("SimNetwork", () => {
  it("delays, loses, reorders and partitions messages", () => {
    const clock = new VirtualClock();
    const net = new SimNetwork<number>(clock, new Prng(1), {
      latency: () => 10,
      jitter: 0.5,
      reorder: 0.3,
      reorderMs: 50,
    });
    const got: number[] = [];
    net.attach("b", (_from, m) => got.push(m));
    for (let i = 0; i < 100; i++) net.send("a", "b", i);
    clock.runFor(4);
    expect(got).toEqual([]);
    clock.runFor(100);
    expect(got.length).toBe(100);
    expect(got).not.toEqual([...got].sort((x, y) => x - y));

    net.setLoss(0.5);
    got.length = 0;
    for (let i = 0; i < 200; i++) net.send("a", "b", i);
    net.send("a", "b", -1, { reliable: true });
    clock.runFor(100);
    expect(got.length).toBeGreaterThan(50);
    expect(got.length).toBeLessThan(150);
    expect(got).toContain(-1);

    net.setLoss(0);
    net.partition([["a"], ["b"]]);
    expect(net.send("a", "b", 1, { reliable: true })).toBe(false);
    net.heal();
    net.detach("b");
    net.send("a", "b", 2);
    clock.runFor(100);
    expect(net.stats().unreachable).toBe(1);
  });
});
