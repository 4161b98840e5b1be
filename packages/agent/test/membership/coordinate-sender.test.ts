import pino from "pino";
import { describe, expect, it } from "vitest";
import {
  CoordinateSender,
  type CoordinateUpdate,
  coordinateInterval,
  type SenderClock,
} from "../../src/membership/index.js";

/** A clock stepped by hand: timers fire when `advance` passes their due time. */
class ManualClock implements SenderClock {
  now = 0;
  private timers: { due: number; fn: () => void; id: number }[] = [];
  private nextId = 0;

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.nextId;
    this.timers.push({ due: this.now + ms, fn, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  pending(): number[] {
    return this.timers.map((t) => t.due - this.now);
  }

  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      const next = [...this.timers].sort((a, b) => a.due - b.due)[0];
      if (!next || next.due > end) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.now = next.due;
      next.fn();
      await new Promise((r) => setImmediate(r));
    }
    this.now = end;
  }
}

const COORD = { Vec: [0, 0, 0, 0, 0, 0, 0, 0], Error: 1.5, Adjustment: 0, Height: 1e-5 };

describe("CoordinateSender", () => {
  it("paces updates as Consul: at least 15 s, scaled to 64 updates/s cluster-wide, staggered", () => {
    expect(coordinateInterval(15_000, 64, 3, 0)).toBe(15_000);
    expect(coordinateInterval(15_000, 64, 3, 0.5)).toBe(22_500);
    // 6400 agents at 64/s: each sends every 100 s (plus stagger).
    expect(coordinateInterval(15_000, 64, 6400, 0)).toBe(100_000);
    expect(coordinateInterval(15_000, 64, 6400, 0.99)).toBe(199_000);
  });

  it("sends this agent's coordinate each interval, survives failures, and stops", async () => {
    const clock = new ManualClock();
    const sent: CoordinateUpdate[] = [];
    let fail = false;
    let size = 3;
    const sender = new CoordinateSender({
      node: "c1",
      coordinate: () => COORD,
      clusterSize: () => size,
      send: async (u) => {
        if (fail) throw new Error("Permission denied");
        sent.push(u);
      },
      log: pino({ level: "silent" }),
      clock,
      random: () => 0,
    });
    sender.start();
    expect(clock.pending()).toEqual([15_000]);
    await clock.advance(14_999);
    expect(sent).toHaveLength(0);
    await clock.advance(1);
    expect(sent).toEqual([{ Node: "c1", Coord: COORD }]);
    fail = true;
    await clock.advance(15_000);
    expect(sent).toHaveLength(1);
    fail = false;
    size = 6400;
    await clock.advance(15_000);
    expect(sent).toHaveLength(2);
    expect(clock.pending()).toEqual([100_000]);
    sender.stop();
    expect(clock.pending()).toEqual([]);
    await clock.advance(500_000);
    expect(sent).toHaveLength(2);
  });
});
