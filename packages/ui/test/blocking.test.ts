import { describe, expect, it } from "vitest";
import { type Answer, nextIndex, watch } from "../src/api/blocking.js";

// The blocking-query loop with a scripted endpoint and a recorded clock: which index each request sends,
// what reaches the view, how long it waits after failures.

interface Step {
  answer?: Answer<string>;
  error?: Error;
}

function script(steps: Step[]) {
  const controller = new AbortController();
  const sent: (number | undefined)[] = [];
  const delivered: [string, number | undefined][] = [];
  const errors: string[] = [];
  const pauses: number[] = [];
  let clock = 0;
  const run = watch<string>({
    signal: controller.signal,
    fetch: async (index) => {
      sent.push(index);
      const step = steps.shift();
      if (!step) {
        controller.abort();
        throw new Error("aborted");
      }
      clock += 5;
      if (step.error) throw step.error;
      return step.answer!;
    },
    onData: (data, index) => delivered.push([data, index]),
    onError: (err) => errors.push((err as Error).message),
    sleep: async (ms) => {
      pauses.push(ms);
      clock += ms;
    },
    now: () => clock,
    backoff: { firstMs: 100, maxMs: 350 },
    minGapMs: 1000,
  });
  return { run, sent, delivered, errors, pauses };
}

describe("blocking-query loop", () => {
  it("follows X-Consul-Index and delivers only changes", async () => {
    const s = script([
      { answer: { data: "a", index: 5 } },
      { answer: { data: "b", index: 9 } },
      { answer: { data: "b", index: 9 } },
      { answer: { data: "c", index: 12 } },
    ]);
    await s.run;
    expect(s.sent).toEqual([undefined, 5, 9, 9, 12]);
    expect(s.delivered).toEqual([
      ["a", 5],
      ["b", 9],
      ["c", 12],
    ]);
    // The unchanged answer came back at once: the loop waited out the minimum gap instead of spinning.
    expect(s.pauses).toEqual([995]);
  });

  it("starts over without an index when the index goes backwards", async () => {
    const s = script([
      { answer: { data: "a", index: 50 } },
      { answer: { data: "restored", index: 7 } },
      { answer: { data: "restored", index: 7 } },
    ]);
    await s.run;
    expect(s.sent).toEqual([undefined, 50, undefined, 7]);
    expect(s.delivered.map(([d]) => d)).toEqual(["a", "restored", "restored"]);
  });

  it("backs off, doubling up to the ceiling, after errors, and asks afresh", async () => {
    const s = script([
      { answer: { data: "a", index: 3 } },
      { error: new Error("503 No cluster leader") },
      { error: new Error("503 No cluster leader") },
      { error: new Error("503 No cluster leader") },
      { error: new Error("503 No cluster leader") },
      { answer: { data: "b", index: 4 } },
    ]);
    await s.run;
    expect(s.errors).toHaveLength(4);
    expect(s.pauses).toEqual([100, 200, 350, 350]);
    expect(s.sent).toEqual([undefined, 3, undefined, undefined, undefined, undefined, 4]);
    expect(s.delivered.map(([d]) => d)).toEqual(["a", "b"]);
  });

  it("fetches an endpoint without X-Consul-Index once", async () => {
    const s = script([
      { answer: { data: "members", index: undefined } },
      { answer: { data: "x", index: 1 } },
    ]);
    await s.run;
    expect(s.sent).toEqual([undefined]);
    expect(s.delivered).toEqual([["members", undefined]]);
  });

  it("clamps an index below 1 to 1 and stops when aborted mid-request", async () => {
    expect(nextIndex(undefined, 0)).toBe(1);
    expect(nextIndex(10, 4)).toBeUndefined();
    expect(nextIndex(10, 10)).toBe(10);
    const controller = new AbortController();
    let calls = 0;
    const done = watch<string>({
      signal: controller.signal,
      fetch: () => {
        calls++;
        controller.abort();
        return Promise.reject(new DOMException("aborted", "AbortError"));
      },
      onData: () => {
        throw new Error("no data expected");
      },
      onError: () => {
        throw new Error("an abort is not an error");
      },
    });
    await done;
    expect(calls).toBe(1);
  });
});
