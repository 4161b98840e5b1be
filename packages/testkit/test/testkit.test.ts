import { describe, expect, it } from "vitest";
import { EventQueue, type Owner, Prng, SimNetwork, SimScheduler, VirtualClock } from "../src/index.js";

/** A simulated process that can crash (live) and stall (pausedUntil). */
function process_(): { live: boolean; pausedUntil: number } & Owner {
  return { live: true, pausedUntil: 0 };
}

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

describe("VirtualClock owners and async runs", () => {
  it("drops a crashed owner's timers, holds a stalled one's until it resumes, and runs continuations between events", async () => {
    const clock = new VirtualClock();
    const a = process_();
    const b = process_();
    const ran: string[] = [];
    clock.after(10, () => ran.push(`a@${clock.now()}`), a);
    clock.after(10, () => ran.push(`b@${clock.now()}`), b);
    clock.after(5, () => {
      a.live = false;
      b.pausedUntil = 30;
    });
    clock.after(20, () => {
      void Promise.resolve().then(() => ran.push(`continuation@${clock.now()}`));
    });
    clock.after(20, () => ran.push(`next@${clock.now()}`));
    const owners: (Owner | null)[] = [];
    await clock.runUntilAsync(100, (owner) => owners.push(owner));
    expect(ran).toEqual(["continuation@20", "next@20", "b@30"]);
    expect(owners.filter((o) => o === b)).toHaveLength(1);
    expect(clock.events).toBe(4);
    expect(clock.now()).toBe(100);
  });

  it("SimScheduler: a process's timers and intervals on the clock, cancellable, with its clock held back by lag", () => {
    const clock = new VirtualClock();
    const p = process_();
    let lag = 0;
    const s = new SimScheduler(clock, p, () => lag);
    const ran: number[] = [];
    const t = s.setTimeout(() => ran.push(-1), 10);
    s.clearTimeout(t);
    const i = s.setInterval(() => ran.push(clock.now()), 10);
    s.setImmediate(() => ran.push(0));
    clock.runUntil(25);
    p.pausedUntil = 55;
    clock.runUntil(60);
    s.clearInterval(i);
    clock.runUntil(100);
    // The interval due at 30, 40 and 50 during the stall fires once, late, at 55.
    expect(ran).toEqual([0, 10, 20, 55]);
    lag = 7;
    expect(s.now()).toBe(93);
  });
});

describe("SimNetwork faults", () => {
  it("cuts links one way, also what is in flight, duplicates, and holds deliveries for a stalled receiver", () => {
    const clock = new VirtualClock();
    const net = new SimNetwork<number>(clock, new Prng(3), { delay: () => 10 });
    const got: string[] = [];
    const b = process_();
    net.attach("a", (from, m) => got.push(`${from}>a:${m}@${clock.now()}`));
    net.attach("b", (from, m) => got.push(`${from}>b:${m}@${clock.now()}`), b);
    net.send("a", "b", 1);
    net.cut("a", "b");
    expect(net.connected("b", "a")).toBe(true);
    expect(net.send("a", "b", 2)).toBe(false);
    net.send("b", "a", 3);
    clock.runFor(20);
    expect(got).toEqual(["b>a:3@10"]);
    net.heal();
    b.pausedUntil = 50;
    net.configure({ duplicate: 1 });
    net.send("a", "b", 4);
    clock.runFor(100);
    expect(got.slice(1)).toEqual(["a>b:4@50", "a>b:4@50"]);
    // Nothing attached where an owned endpoint was: what arrives there is void.
    net.detach("b");
    net.send("a", "b", 5);
    const events = clock.events;
    clock.runFor(100);
    expect(clock.events).toBe(events);
  });

  it("dial redials across a cut; a stream breaks when its receiver restarts and completes otherwise", () => {
    const clock = new VirtualClock();
    const net = new SimNetwork<number>(clock, new Prng(5), { delay: () => 10 });
    net.attach("b", () => {}, process_());
    net.cut("a", "b");
    let connectedAt = -1;
    net.dial(
      "a",
      "b",
      () => (connectedAt = clock.now()),
      () => true,
      25,
    );
    clock.runUntil(50);
    net.heal();
    clock.runUntil(200);
    // Cut at 10 and at 45 (10 + 25 + 10); the redial after that arrives at 80.
    expect(connectedAt).toBe(80);

    const outcome: string[] = [];
    net.stream("a", "b", 4, { done: () => outcome.push("done"), broken: () => outcome.push("broken") });
    clock.runFor(100);
    net.stream("a", "b", 1, { done: () => outcome.push("done"), broken: () => outcome.push("broken") });
    net.attach("b", () => {}, process_());
    clock.runFor(100);
    net.stream("a", "c", 1, { done: () => outcome.push("done"), broken: () => outcome.push("broken") });
    expect(outcome).toEqual(["done", "broken", "broken"]);
  });

  it("delays a stream's chunks with chunkDelay when given", () => {
    const clock = new VirtualClock();
    const net = new SimNetwork<number>(clock, new Prng(5), { delay: () => 1000, chunkDelay: () => 10 });
    net.attach("b", () => {}, process_());
    let doneAt = -1;
    net.stream("a", "b", 4, { done: () => (doneAt = clock.now()), broken: () => {} });
    clock.runUntil(100);
    expect(doneAt).toBeGreaterThanOrEqual(10);
    expect(doneAt).toBeLessThanOrEqual(40);
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
