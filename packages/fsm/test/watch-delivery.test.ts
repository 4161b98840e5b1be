import { describe, expect, it } from "vitest";
import { kvKeyWatch, kvPrefixWatch } from "../src/store/watch/keys.js";
import { WatchRegistry } from "../src/store/watch/registry.js";

/** A registry at index 5 whose deferred deliveries run only when the test says so. */
function registry(batchSize: number) {
  const deferred: Array<() => void> = [];
  const watches = new WatchRegistry(() => 5, { batchSize, defer: (fn) => deferred.push(fn) });
  const turn = () => {
    const fn = deferred.shift();
    if (!fn) throw new Error("nothing deferred");
    fn();
  };
  return { watches, deferred, turn };
}

const onKey = (key: string) => ({ index: 5, keys: [kvKeyWatch(key)] });

describe("watch delivery", () => {
  it("wakes a large herd a batch per turn, in order, and unregisters everyone at once", () => {
    const { watches, deferred, turn } = registry(3);
    const woken: number[] = [];
    for (let i = 0; i < 8; i++) watches.listen(onKey("a"), () => woken.push(i));
    watches.notify(["a"], []);
    expect(watches.waiting).toBe(0);
    expect(woken).toEqual([0, 1, 2]);
    turn();
    expect(woken).toEqual([0, 1, 2, 3, 4, 5]);
    turn();
    expect(woken).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(deferred).toHaveLength(0);
  });

  it("a watcher cancelled while queued for delivery is not woken; cancel after a wake is a no-op", () => {
    const { watches, turn } = registry(1);
    const woken: string[] = [];
    const first = watches.listen(onKey("a"), () => woken.push("first"));
    const second = watches.listen(onKey("a"), () => woken.push("second"));
    watches.notify(["a"], []);
    second?.cancel();
    first?.cancel();
    turn();
    expect(woken).toEqual(["first"]);
    expect(watches.waiting).toBe(0);
  });

  it("listen refuses a watch set older than the store; cancel unregisters", () => {
    const { watches } = registry(10);
    expect(watches.listen({ index: 4, keys: [kvKeyWatch("a")] }, () => {})).toBeUndefined();
    const w = watches.listen({ index: 5, keys: [kvPrefixWatch("a/"), kvKeyWatch("b")] }, () => {
      throw new Error("cancelled watchers are never woken");
    });
    expect(watches.waiting).toBe(1);
    w?.cancel();
    expect(watches.waiting).toBe(0);
    watches.notify(["a/x", "b"], []);
  });

  it("a waiter on both a key and its prefix is woken once", () => {
    const { watches } = registry(10);
    let wakes = 0;
    watches.listen({ index: 5, keys: [kvKeyWatch("a/x"), kvPrefixWatch("a/")] }, () => wakes++);
    watches.notify(["a/x"], []);
    watches.notify(["a/x"], []);
    expect(wakes).toBe(1);
  });

  it("wait() still resolves through the batches and times out through its signal", async () => {
    const { watches, turn } = registry(1);
    const a = watches.wait(onKey("a"));
    const b = watches.wait(onKey("a"));
    const gone = new AbortController();
    const c = watches.wait(onKey("c"), gone.signal);
    watches.notify(["a"], []);
    expect(await a).toBe("changed");
    turn();
    expect(await b).toBe("changed");
    gone.abort();
    expect(await c).toBe("timeout");
    expect(watches.waiting).toBe(0);
  });
});
