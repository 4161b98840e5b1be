import { describe, expect, it } from "vitest";
import { Backoff } from "../../src/transport/backoff.js";

describe("Backoff", () => {
  it("doubles up to the maximum, jittered within [d/2, d], and starts over after reset", () => {
    const low = new Backoff({ initialMs: 100, maxMs: 1000 }, () => 0);
    expect(Array.from({ length: 6 }, () => low.next())).toEqual([50, 100, 200, 400, 500, 500]);
    const high = new Backoff({ initialMs: 100, maxMs: 1000 }, () => 0.999999);
    expect(Array.from({ length: 6 }, () => high.next())).toEqual([100, 200, 400, 800, 1000, 1000]);
    high.reset();
    expect(high.next()).toBe(100);
  });
});
