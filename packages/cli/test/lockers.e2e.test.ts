// The lock and semaphore protocols in process against a real server: lock-delay and dead holders.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFlags } from "../src/args.js";
import { realClock } from "../src/clock.js";
import { HttpClient, httpFlags, resolveHttpConfig } from "../src/http.js";
import { KvApi } from "../src/kv-api.js";
import { DEFAULT_TUNING, Mutex, Semaphore } from "../src/lock/lockers.js";
import { LOCK_FLAGS } from "../src/lock/protocol.js";
import { startServer, type TestServer } from "./helpers/server.js";

let server: TestServer;
let http: HttpClient;
let kv: KvApi;

beforeAll(async () => {
  server = await startServer();
  http = new HttpClient(resolveHttpConfig(parseFlags(httpFlags, []).values, server.env));
  kv = new KvApi(http);
});

afterAll(() => server.close());

async function createSession(body: Record<string, string>): Promise<string> {
  const created = await http.json("PUT", "/v1/session/create", { body: JSON.stringify(body) });
  return (created as { ID: string }).ID;
}

/** Resolves once `signal` has aborted, including when it already has. */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return Promise.reject(new Error("no signal"));
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

const destroy = async (id: string) => (await http.request("PUT", `/v1/session/destroy/${id}`)).discard();

describe("Mutex", () => {
  it("waits out the lock-delay of an invalidated holder instead of failing", async () => {
    const first = await createSession({ LockDelay: "1s" });
    expect(await kv.put({ key: "delay/.lock", flags: LOCK_FLAGS, acquire: first })).toBe(true);
    const second = await createSession({});
    // The delay runs from the destroy: timed from before it, however slow the requests are.
    const started = Date.now();
    await destroy(first);
    const held = await new Mutex(kv, "delay").acquire(second, new AbortController().signal);
    expect(held).toBeDefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect((await kv.get("delay/.lock")).entry?.session).toBe(second);
    await held?.release();
    await destroy(second);
  });

  it("wakes a waiter as soon as the holder releases, and reports the holder's loss", async () => {
    const a = await createSession({});
    const b = await createSession({});
    const mutex = new Mutex(kv, "wake", { ...DEFAULT_TUNING, monitorRetryMs: 50 });
    const heldA = await mutex.acquire(a, new AbortController().signal);
    let bHeld = false;
    const waiting = mutex.acquire(b, new AbortController().signal).then((h) => {
      bHeld = true;
      return h;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(bHeld).toBe(false);
    await heldA?.release();
    const heldB = await waiting;
    expect(heldB?.lost.aborted).toBe(false);
    await destroy(b);
    await aborted(heldB?.lost);
    await destroy(a);
  });
});

describe("Semaphore", () => {
  it("frees the slot of a holder whose session dies, waking a blocked contender", async () => {
    const behavior = { Behavior: "delete" };
    const [a, b, c] = [
      await createSession(behavior),
      await createSession(behavior),
      await createSession(behavior),
    ];
    const sem = new Semaphore(kv, "pool", 2);
    const heldA = await sem.acquire(a, new AbortController().signal);
    const heldB = await sem.acquire(b, new AbortController().signal);
    expect(heldA && heldB).toBeDefined();
    let cHeld = false;
    const waiting = sem.acquire(c, new AbortController().signal).then((h) => {
      cHeld = true;
      return h;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(cHeld).toBe(false);
    await destroy(a);
    const heldC = await waiting;
    expect(heldC).toBeDefined();
    await aborted(heldA?.lost);
    await heldB?.release();
    await heldC?.release();
    await destroy(b);
    await destroy(c);
    expect(await sem.cleanup()).toBe("done");
    expect((await kv.list("pool")).entries).toEqual([]);
  });

  it("stops waiting when its signal aborts", async () => {
    const behavior = { Behavior: "delete" };
    const [a, b] = [await createSession(behavior), await createSession(behavior)];
    const sem = new Semaphore(kv, "full", 1);
    const held = await sem.acquire(a, new AbortController().signal);
    expect(await sem.acquire(b, realClock.deadline(300).signal)).toBeUndefined();
    await held?.release();
    await destroy(a);
    await destroy(b);
  });
});
