// Proposals waiting for their entry share one timer: each still fails at its own deadline, an applied one
// never does, and the timer follows the earliest deadline still waiting.
import { describe, expect, it } from "vitest";
import { ProposalDroppedError, RaftTimeoutError } from "../../src/node/errors.js";
import { PendingProposals } from "../../src/node/pending.js";
import type { Scheduler, TimerHandle } from "../../src/node/ports.js";

/** Time that moves only when told; counts the timers armed and still live. */
class ManualClock implements Scheduler {
  private t = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  armed = 0;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number): TimerHandle => {
    this.armed++;
    const id = this.next++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  };
  clearTimeout = (h: TimerHandle) => {
    this.timers.delete(h as number);
  };
  setInterval = (): TimerHandle => {
    throw new Error("not used");
  };
  clearInterval = () => {};
  setImmediate = (fn: () => void) => fn();
  get live() {
    return this.timers.size;
  }
  advance(ms: number): void {
    const until = this.t + ms;
    for (;;) {
      const due = [...this.timers].filter(([, x]) => x.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
    }
    this.t = until;
  }
}

const settled = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (error: Error) => ({ error }),
  );

describe("pending proposals", () => {
  it("fails each unapplied proposal at its own deadline with one timer", async () => {
    const clock = new ManualClock();
    const pending = new PendingProposals<string>(clock);
    const first = settled(pending.add(1, 1, 100));
    clock.advance(40);
    const second = settled(pending.add(2, 1, 100));
    const third = settled(pending.add(3, 1, 100));
    expect(clock.live).toBe(1);
    pending.applied(3, 1, { ok: true, value: "done" });
    clock.advance(60); // the first's deadline
    expect(await first).toMatchObject({ error: expect.any(RaftTimeoutError) });
    expect(((await first) as { error: Error }).error.message).toBe(
      "proposal at index 1 not applied in 100 ms; it may still be",
    );
    expect(await third).toEqual({ value: "done" });
    expect(clock.live).toBe(1); // now for the second's
    clock.advance(39);
    pending.applied(2, 1, { ok: false, error: new Error("refused") });
    expect(await second).toMatchObject({ error: { message: "refused" } });
    clock.advance(10);
    expect(clock.live).toBe(0);
    expect(clock.armed).toBe(2);
  });

  it("re-arms for a proposal whose deadline is earlier than the armed one", async () => {
    const clock = new ManualClock();
    const pending = new PendingProposals<string>(clock);
    const late = settled(pending.add(1, 1, 1_000));
    const early = settled(pending.add(2, 1, 10));
    expect(clock.live).toBe(1);
    clock.advance(10);
    expect(await early).toMatchObject({ error: expect.any(RaftTimeoutError) });
    clock.advance(989);
    pending.applied(1, 1, { ok: true, value: "late but applied" });
    expect(await late).toEqual({ value: "late but applied" });
  });

  it("drops a proposal whose index was applied in another term, or handed out again", async () => {
    const clock = new ManualClock();
    const pending = new PendingProposals<string>(clock);
    const replacedByEntry = settled(pending.add(5, 1, 100));
    pending.applied(5, 2, { ok: true, value: "someone else's" });
    expect(await replacedByEntry).toMatchObject({ error: expect.any(ProposalDroppedError) });
    const truncated = settled(pending.add(6, 1, 100));
    const again = settled(pending.add(6, 2, 100));
    pending.applied(6, 2, { ok: true, value: "ours" });
    expect(await truncated).toMatchObject({ error: expect.any(ProposalDroppedError) });
    expect(await again).toEqual({ value: "ours" });
    clock.advance(1_000); // the timer finds nothing left to fail
    expect(clock.live).toBe(0);
  });
});
