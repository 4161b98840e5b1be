// Identical blocking queries share one run: which requests are identical, the join window (wait/16), and
// callers leaving, with a hand-driven `send`. Through a client agent's tunnel: packages/agent's
// pool-shared.test.ts; through an agent's HTTP API: shared-fetch.test.ts.
import { describe, expect, it } from "vitest";
import { signalGone } from "../../src/http/client-gone.js";
import { type QueryFrame, SharedQueries, type ShareKey, shareKey } from "../../src/http/shared-queries.js";

const get = (url: string, headers: [string, string][] = []): QueryFrame => ({ method: "GET", url, headers });

describe("shareKey", () => {
  it("shares only blocking GETs that are not ?consistent", () => {
    expect(shareKey(get("/v1/kv/a?index=7"))).toBeDefined();
    expect(shareKey(get("/v1/health/service/web?passing&index=7&stale"))).toBeDefined();
    expect(shareKey(get("/v1/kv/a"))).toBeUndefined();
    expect(shareKey(get("/v1/kv/a?index=0"))).toBeUndefined();
    expect(shareKey(get("/v1/kv/a?index="))).toBeUndefined();
    expect(shareKey(get("/v1/kv/a?index=7&consistent"))).toBeUndefined();
    expect(shareKey({ ...get("/v1/kv/a?index=7"), method: "PUT" })).toBeUndefined();
    // Refused by the server, to each caller alike.
    expect(shareKey(get("/v1/kv/a?index=7&wait=soon"))).toBeUndefined();
  });

  it("tells requests apart by URL and every header", () => {
    const key = (frame: QueryFrame) => shareKey(frame)?.key;
    const plain = key(get("/v1/kv/a?index=7", [["x-consul-token", "one"]]));
    expect(key(get("/v1/kv/a?index=7", [["x-consul-token", "one"]]))).toBe(plain);
    expect(key(get("/v1/kv/a?index=7", [["x-consul-token", "two"]]))).not.toBe(plain);
    expect(key(get("/v1/kv/a?index=8", [["x-consul-token", "one"]]))).not.toBe(plain);
    expect(key(get("/v1/kv/a?index=7&token=x", [["x-consul-token", "one"]]))).not.toBe(plain);
    expect(
      key(
        get("/v1/kv/a?index=7", [
          ["x-consul-token", "one"],
          ["x-consul-namespace", "ns"],
        ]),
      ),
    ).not.toBe(plain);
  });

  it("lets callers join for wait/16 of the query's wait (Consul's default 5 min and longest 10 min)", () => {
    expect(shareKey(get("/v1/kv/a?index=7"))?.joinMs).toBe(300_000 / 16);
    expect(shareKey(get("/v1/kv/a?index=7&wait=16s"))?.joinMs).toBe(1_000);
    expect(shareKey(get("/v1/kv/a?index=7&wait=1h"))?.joinMs).toBe(600_000 / 16);
  });
});

/** A `send` the test answers by hand, recording each call. */
function upstream() {
  const calls: { signal: AbortSignal; answer: (v: string) => void }[] = [];
  const send = (signal: AbortSignal) =>
    new Promise<string>((resolve) => {
      calls.push({ signal, answer: resolve });
    });
  return { calls, send };
}

/** The share key of a query the tests know to be shareable. */
const keyOf = (url: string): ShareKey => shareKey(get(url))!;
const gone = (c: AbortController | AbortSignal) => signalGone(c instanceof AbortSignal ? c : c.signal);

describe("SharedQueries", () => {
  it("sends one request for identical queries and gives its answer to each", async () => {
    const shared = new SharedQueries<string>(() => 0);
    const { calls, send } = upstream();
    const answers = Array.from({ length: 5 }, () =>
      shared.answer(keyOf("/v1/kv/a?index=7"), undefined, send, () => "cancelled"),
    );
    const other = shared.answer(keyOf("/v1/kv/b?index=7"), undefined, send, () => "cancelled");
    expect(calls.length).toBe(2);
    calls[0]!.answer("a");
    calls[1]!.answer("b");
    expect(await Promise.all(answers)).toEqual(["a", "a", "a", "a", "a"]);
    expect(await other).toBe("b");
    // Answered: the next query starts a request of its own.
    expect(shared.size).toBe(0);
    void shared.answer(keyOf("/v1/kv/a?index=7"), undefined, send, () => "cancelled");
    expect(calls.length).toBe(3);
  });

  it("starts a new request for a query that comes more than wait/16 after the first", () => {
    let now = 0;
    const shared = new SharedQueries<string>(() => now);
    const { calls, send } = upstream();
    const ask = () => void shared.answer(keyOf("/v1/kv/a?index=7&wait=16s"), undefined, send, () => "");
    ask();
    now = 1_000;
    ask();
    expect(calls.length).toBe(1);
    now = 1_001;
    ask();
    expect(calls.length).toBe(2);
    // Later callers join the newer request.
    now = 1_500;
    ask();
    expect(calls.length).toBe(2);
  });

  it("cancels the server's request only when the last caller has gone", async () => {
    const shared = new SharedQueries<string>(() => 0);
    const { calls, send } = upstream();
    const callers = [new AbortController(), new AbortController()];
    const answers = callers.map((c) =>
      shared.answer(keyOf("/v1/kv/a?index=7"), gone(c), send, () => "cancelled"),
    );
    const upstreamSignal = calls[0]!.signal;
    callers[0]!.abort();
    expect(await answers[0]).toBe("cancelled");
    expect(upstreamSignal.aborted).toBe(false);
    // A newcomer still joins the request the remaining caller waits on.
    const late = shared.answer(keyOf("/v1/kv/a?index=7"), undefined, send, () => "cancelled");
    expect(calls.length).toBe(1);
    callers[1]!.abort();
    expect(await answers[1]).toBe("cancelled");
    // The caller without a signal keeps it.
    expect(upstreamSignal.aborted).toBe(false);
    calls[0]!.answer("a");
    expect(await late).toBe("a");
  });

  it("cancels the server's request when every caller has gone, and nobody joins it after", async () => {
    const shared = new SharedQueries<string>(() => 0);
    const { calls, send } = upstream();
    const caller = new AbortController();
    const answer = shared.answer(keyOf("/v1/kv/a?index=7"), gone(caller), send, () => "cancelled");
    caller.abort();
    expect(await answer).toBe("cancelled");
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(shared.size).toBe(0);
    void shared.answer(keyOf("/v1/kv/a?index=7"), undefined, send, () => "cancelled");
    expect(calls.length).toBe(2);
    // A caller whose signal had aborted already neither waits nor keeps a request alive.
    const aborted = AbortSignal.abort();
    expect(await shared.answer(keyOf("/v1/kv/c?index=7"), gone(aborted), send, () => "cancelled")).toBe(
      "cancelled",
    );
    expect(calls[2]!.signal.aborted).toBe(true);
  });

  it("tells the first batch of callers at once and the rest together a turn later", async () => {
    const deferred: (() => void)[] = [];
    const shared = new SharedQueries<string>(() => 0, { firstBatch: 256, defer: (fn) => deferred.push(fn) });
    const { calls, send } = upstream();
    const told: number[] = [];
    const callers = Array.from({ length: 600 }, () => new AbortController());
    const answers = callers.map((c, i) =>
      shared
        .answer(keyOf("/v1/kv/a?index=7"), gone(c), send, () => "cancelled")
        .then((v) => {
          told.push(i);
          return v;
        }),
    );
    calls[0]!.answer("a");
    await new Promise((r) => setTimeout(r, 0));
    expect(told.length).toBe(256);
    expect(deferred.length).toBe(1);
    // Leaving once the answer is on its way changes nothing for anyone.
    callers[599]!.abort();
    deferred.shift()!();
    expect(await Promise.all(answers)).toEqual(answers.map(() => "a"));
    expect(told.length).toBe(600);
    expect(deferred.length).toBe(0);
    expect(calls[0]!.signal.aborted).toBe(false);
  });

  it("ends a run whose send throws, so that the next query starts afresh", async () => {
    const shared = new SharedQueries<string>(() => 0);
    const throws = (): Promise<string> => {
      throw new Error("no server");
    };
    await expect(shared.answer(keyOf("/v1/kv/a?index=7"), undefined, throws, () => "")).rejects.toThrow(
      "no server",
    );
    expect(shared.size).toBe(0);
  });

  it("passes a failure of the request on to every caller", async () => {
    const shared = new SharedQueries<string>(() => 0);
    let fail: (err: Error) => void = () => {};
    const send = () =>
      new Promise<string>((_, reject) => {
        fail = reject;
      });
    const answers = [0, 1].map(() => shared.answer(keyOf("/v1/kv/a?index=7"), undefined, send, () => ""));
    fail(new Error("boom"));
    for (const a of answers) await expect(a).rejects.toThrow("boom");
    expect(shared.size).toBe(0);
  });
});
