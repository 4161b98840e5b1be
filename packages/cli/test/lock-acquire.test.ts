// The acquisition loop of `cairn lock` under a clock the test moves: -timeout and shutdown end every kind
// of wait (session create, blocking read, acquiring write in flight, lock-delay back-off, semaphore steps),
// abort the request in flight, and leave no session behind.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { realClock } from "../src/clock.js";
import type { KvEntry, KvWrite } from "../src/kv-api.js";
import { type AcquireOptions, acquireLock } from "../src/lock/acquire.js";
import { type LockKv, Mutex, Semaphore } from "../src/lock/lockers.js";
import { LOCK_FLAGS, SEMAPHORE_FLAGS } from "../src/lock/protocol.js";
import type { SessionCalls } from "../src/lock/session.js";
import { ManualClock } from "./helpers/manual-clock.js";

/** One request the code under test made, held open until the test answers it or its signal aborts. */
interface Call {
  op: "create" | "get" | "list" | "put" | "delete" | "destroy";
  key: string;
  index?: bigint;
  write?: KvWrite;
  aborted: boolean;
  answer(value: unknown): void;
}

/** Scripted KV and session calls: every call waits for the test, which sees them in order with next(). */
class Script {
  readonly calls: Call[] = [];
  private waiters: ((c: Call) => void)[] = [];
  private seen = 0;

  private call<T>(op: Call["op"], key: string, signal?: AbortSignal, extra: Partial<Call> = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const abort = () => {
        if (settled) return;
        settled = true;
        call.aborted = true;
        reject(new Error("aborted"));
      };
      const call: Call = {
        op,
        key,
        aborted: false,
        answer: (v) => {
          if (settled) return;
          settled = true;
          resolve(v as T);
        },
        ...extra,
      };
      if (signal?.aborted) {
        abort();
        return;
      }
      signal?.addEventListener("abort", abort, { once: true });
      this.calls.push(call);
      this.waiters.shift()?.(call);
    });
  }

  /** The next call made after the previous next(); waits for it if it has not come yet. */
  async next(op: Call["op"]): Promise<Call> {
    const call =
      this.seen < this.calls.length
        ? this.calls[this.seen]!
        : await new Promise<Call>((resolve) => this.waiters.push(resolve));
    this.seen++;
    expect(call.op).toBe(op);
    return call;
  }

  readonly kv: LockKv = {
    get: (key, block = {}) => this.call("get", key, block.signal, { index: block.index }),
    list: (prefix, block = {}) => this.call("list", prefix, block.signal, { index: block.index }),
    put: (write, signal) => this.call("put", write.key, signal, { write }),
    delete: (key, opts = {}) => this.call("delete", key, opts.signal),
  };

  readonly sessions: SessionCalls = {
    create: (_spec, signal) => this.call("create", "", signal),
    renew: async () => "15s",
    destroy: async (id) => {
      this.calls.push({ op: "destroy", key: id, aborted: false, answer: () => undefined });
      this.waiters.shift()?.(this.calls.at(-1)!);
    },
  };
}

function entry(key: string, flags: bigint, session: string, value = "", modifyIndex = 5n): KvEntry {
  return {
    key,
    value: Buffer.from(value),
    flags,
    createIndex: 1n,
    modifyIndex,
    lockIndex: 1n,
    session,
  };
}

const OTHER = "other-session";
const MINE = "my-session";

function setup(kind: "mutex" | "semaphore", timeoutMs = 600) {
  const script = new Script();
  const clock = new ManualClock();
  const shutdown = new AbortController();
  const locker =
    kind === "mutex"
      ? new Mutex(script.kv, "jobs", undefined, clock)
      : new Semaphore(script.kv, "jobs", 2, undefined, clock);
  const opts: AcquireOptions = {
    sessions: script.sessions,
    spec: { name: "t", ttl: "15s", behavior: kind === "mutex" ? "release" : "delete" },
    locker,
    timeoutMs,
    shutdown: shutdown.signal,
    clock,
  };
  const result = acquireLock(opts);
  return { script, clock, shutdown, result };
}

/** Answers the session create and returns the result promise's context. */
async function withSession(s: ReturnType<typeof setup>) {
  (await s.script.next("create")).answer(MINE);
}

/** Lets the code under test run until it waits on a call or a timer again. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Gives up at the deadline with the call in flight aborted, the session destroyed and no timer left. */
async function expectStoppedAt(s: ReturnType<typeof setup>, inFlight: Call | undefined, ms = 600) {
  await settle();
  s.clock.advance(ms - 1);
  await settle();
  if (inFlight !== undefined) expect(inFlight.aborted).toBe(false);
  s.clock.advance(1);
  expect(await s.result).toEqual({ kind: "stopped" });
  if (inFlight !== undefined) expect(inFlight.aborted).toBe(true);
  expect(s.script.calls.filter((c) => c.op === "destroy").map((c) => c.key)).toEqual(
    s.script.calls.some((c) => c.op === "create" && !c.aborted) ? [MINE] : [],
  );
  expect(s.clock.pending).toBe(0);
}

describe("lock acquisition under -timeout", () => {
  it("ends a session create that has not answered", async () => {
    const s = setup("mutex");
    const create = await s.script.next("create");
    await expectStoppedAt(s, create);
  });

  it("ends a blocking read while another session holds the lock", async () => {
    const s = setup("mutex");
    await withSession(s);
    (await s.script.next("get")).answer({ entry: entry("jobs/.lock", LOCK_FLAGS, OTHER), index: 7n });
    const blocking = await s.script.next("get");
    expect(blocking.index).toBe(7n);
    await expectStoppedAt(s, blocking);
  });

  it("ends an acquiring write in flight, and destroys the session in case it applied", async () => {
    const s = setup("mutex");
    await withSession(s);
    (await s.script.next("get")).answer({ entry: undefined, index: 7n });
    const put = await s.script.next("put");
    expect(put.write?.acquire).toBe(MINE);
    await expectStoppedAt(s, put);
  });

  it("ends the back-off after an acquire refused by a lock-delay", async () => {
    const s = setup("mutex");
    await withSession(s);
    (await s.script.next("get")).answer({ entry: undefined, index: 7n });
    (await s.script.next("put")).answer(false);
    // Back-off (250 ms, then 500 ms...) retries until the deadline, which ends the wait in the middle.
    await settle();
    s.clock.advance(250);
    (await s.script.next("get")).answer({ entry: undefined, index: 8n });
    (await s.script.next("put")).answer(false);
    await expectStoppedAt(s, undefined, 350);
    expect(s.script.calls.filter((c) => c.op === "put")).toHaveLength(2);
  });

  it("ends a semaphore's contender write, blocking list and slot write", async () => {
    const contender = setup("semaphore");
    await withSession(contender);
    const put = await contender.script.next("put");
    expect(put.write?.key).toBe(`jobs/${MINE}`);
    await expectStoppedAt(contender, put);

    const full = setup("semaphore");
    await withSession(full);
    (await full.script.next("put")).answer(true);
    const doc = JSON.stringify({ Limit: 2, Holders: { a: true, b: true } });
    (await full.script.next("list")).answer({
      entries: [
        entry("jobs/.lock", SEMAPHORE_FLAGS, "", doc),
        entry("jobs/a", SEMAPHORE_FLAGS, "a"),
        entry("jobs/b", SEMAPHORE_FLAGS, "b"),
        entry(`jobs/${MINE}`, SEMAPHORE_FLAGS, MINE),
      ],
      index: 9n,
    });
    const blocking = await full.script.next("list");
    expect(blocking.index).toBe(9n);
    await expectStoppedAt(full, blocking);

    const slot = setup("semaphore");
    await withSession(slot);
    (await slot.script.next("put")).answer(true);
    (await slot.script.next("list")).answer({
      entries: [entry(`jobs/${MINE}`, SEMAPHORE_FLAGS, MINE)],
      index: 9n,
    });
    const cas = await slot.script.next("put");
    expect(cas.write?.key).toBe("jobs/.lock");
    await expectStoppedAt(slot, cas);
  });

  it("stops at a shutdown signal just as at the deadline", async () => {
    const s = setup("mutex", 0);
    await withSession(s);
    (await s.script.next("get")).answer({ entry: entry("jobs/.lock", LOCK_FLAGS, OTHER), index: 7n });
    const blocking = await s.script.next("get");
    await settle();
    s.clock.advance(3_600_000);
    expect(blocking.aborted).toBe(false);
    s.shutdown.abort();
    expect(await s.result).toEqual({ kind: "stopped" });
    expect(blocking.aborted).toBe(true);
  });

  it("acquires within the deadline and then leaves no deadline running", async () => {
    const s = setup("mutex");
    await withSession(s);
    (await s.script.next("get")).answer({ entry: undefined, index: 7n });
    (await s.script.next("put")).answer(true);
    const result = await s.result;
    expect(result.kind).toBe("held");
    // The held lock's monitor reads with its own signal: the passed deadline must not end it.
    const monitor = await s.script.next("get");
    await settle();
    s.clock.advance(10_000);
    expect(monitor.aborted).toBe(false);
    if (result.kind === "held") {
      expect(result.held.lost.aborted).toBe(false);
      const release = result.held.release();
      (await s.script.next("put")).answer(true);
      await release;
      await result.session.stop();
    }
  });
});

/**
 * Nested as acquisition nests them, (shutdown or deadline), then (that or session gone), built in a frame
 * that returns so that nothing but the composites refers to the deadline's signal.
 */
function nestedWithDeadline(deadline: () => AbortSignal): AbortSignal {
  const stop = AbortSignal.any([new AbortController().signal, deadline()]);
  return AbortSignal.any([stop, new AbortController().signal]);
}

describe("the real clock's deadline", () => {
  it("fires after a garbage collection when only AbortSignal.any() composites refer to it", async () => {
    // AbortSignal.timeout() fails exactly this (Node lets the collector take it), which is why the real
    // clock owns its timer.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const composite = nestedWithDeadline(() => realClock.deadline(100).signal);
    const fired = new Promise<boolean>((resolve) => {
      composite.addEventListener("abort", () => resolve(true), { once: true });
      setTimeout(() => resolve(false), 5_000).unref();
    });
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
    gc();
    expect(await fired).toBe(true);
  });
});
