import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Deadlines, type TimerHost } from "../../src/http/deadlines.js";

/** Virtual time: one pending host timer at most, run by `advance`. */
function virtualHost() {
  let now = 0;
  let timer: { at: number; fire: () => void } | undefined;
  let armed = 0;
  const host: TimerHost = {
    now: () => now,
    setTimer: (fire, delayMs) => {
      armed++;
      timer = { at: now + delayMs, fire };
      return timer;
    },
    clearTimer: (handle) => {
      if (handle === timer) timer = undefined;
    },
  };
  const advance = (ms: number) => {
    const end = now + ms;
    while (timer !== undefined && timer.at <= end) {
      const t = timer;
      timer = undefined;
      now = t.at;
      t.fire();
    }
    now = end;
  };
  return { host, advance, armedCount: () => armed, now: () => now };
}

describe("deadlines", () => {
  it("fires each deadline once, at its time, in order", () => {
    const v = virtualHost();
    const d = new Deadlines(v.host);
    const fired: string[] = [];
    d.after(300, () => fired.push(`c@${v.now()}`));
    d.after(100, () => fired.push(`a@${v.now()}`));
    d.after(200, () => fired.push(`b@${v.now()}`));
    v.advance(150);
    expect(fired).toEqual(["a@100"]);
    v.advance(1_000);
    expect(fired).toEqual(["a@100", "b@200", "c@300"]);
    expect(d.pending).toBe(0);
  });

  it("a cancelled deadline never fires; cancelling the earliest moves the timer on", () => {
    const v = virtualHost();
    const d = new Deadlines(v.host);
    const fired: number[] = [];
    const first = d.after(100, () => fired.push(100));
    d.after(200, () => fired.push(200));
    first.cancel();
    first.cancel();
    expect(d.pending).toBe(1);
    v.advance(150);
    expect(fired).toEqual([]);
    v.advance(100);
    expect(fired).toEqual([200]);
  });

  it("matches a model under random adds, cancels and time steps, and compacts cancelled entries", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ add: fc.integer({ min: 0, max: 1_000 }) }),
            fc.record({ cancel: fc.nat() }),
            fc.record({ step: fc.integer({ min: 0, max: 300 }) }),
          ),
          { maxLength: 400 },
        ),
        (ops) => {
          const v = virtualHost();
          const d = new Deadlines(v.host);
          const model: Array<{ due: number; fired: boolean; cancelled: boolean }> = [];
          const handles: Array<{ cancel(): void }> = [];
          const firedAt: number[] = [];
          for (const op of ops) {
            if ("add" in op) {
              const id = model.length;
              model.push({ due: v.now() + op.add, fired: false, cancelled: false });
              handles.push(
                d.after(op.add, () => {
                  const m = model[id]!;
                  expect(m.fired || m.cancelled).toBe(false);
                  expect(v.now()).toBeGreaterThanOrEqual(m.due);
                  m.fired = true;
                  firedAt.push(v.now());
                }),
              );
            } else if ("cancel" in op && model.length > 0) {
              const id = op.cancel % model.length;
              if (!model[id]!.fired) model[id]!.cancelled = true;
              handles[id]!.cancel();
            } else if ("step" in op) {
              v.advance(op.step);
              for (const m of model) {
                if (!m.cancelled && m.due <= v.now()) expect(m.fired).toBe(true);
              }
            }
          }
          expect(d.pending).toBe(model.filter((m) => !m.fired && !m.cancelled).length);
        },
      ),
    );
  });

  it("holds 10,000 jittered deadlines on one host timer", () => {
    const v = virtualHost();
    const d = new Deadlines(v.host);
    let fired = 0;
    const all = Array.from({ length: 10_000 }, (_, i) =>
      d.after(300_000 + ((i * 7919) % 18_750), () => fired++),
    );
    for (const [i, h] of all.entries()) if (i % 2 === 0) h.cancel();
    expect(v.armedCount()).toBeLessThan(10);
    v.advance(400_000);
    expect([fired, d.pending]).toEqual([5_000, 0]);
  });
});
