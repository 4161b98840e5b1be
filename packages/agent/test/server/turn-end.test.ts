import { describe, expect, it } from "vitest";
import { turnEnd } from "../../src/server/turn-end.js";

describe("turnEnd", () => {
  it("gives every caller in one turn the same promise, and the next turn a new one", async () => {
    const first = turnEnd();
    expect(turnEnd()).toBe(first);
    await first;
    const next = turnEnd();
    expect(next).not.toBe(first);
    await next;
  });

  it("settles after the turn's other callbacks, together for everyone who waited in it", async () => {
    const order: string[] = [];
    const waits = [1, 2, 3].map((n) => turnEnd().then(() => order.push(`read ${n}`)));
    // Work the same turn goes on to do (as the poll phase reads more requests) comes first.
    queueMicrotask(() => order.push("microtask"));
    process.nextTick(() => order.push("tick"));
    await Promise.all(waits);
    expect(order.slice(0, 2).sort()).toEqual(["microtask", "tick"]);
    expect(order.slice(2)).toEqual(["read 1", "read 2", "read 3"]);
  });
});
