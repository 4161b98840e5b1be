// Identical blocking queries share one request to the server: which requests are identical, the join window
// (wait/16), and callers leaving. The logic on its own with a hand-driven `send`, then through a TunnelPool
// against a real in-process server, counting the queries the server holds.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TunnelPool } from "../../src/tunnel/index.js";
import { type QueryFrame, SharedQueries, shareKey } from "../../src/tunnel/shared-queries.js";
import { ready, startTunnelServer, type TunnelServer, until } from "./harness.js";

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
  const calls: { signal: AbortSignal | undefined; shared: boolean; answer: (v: string) => void }[] = [];
  const send = (signal: AbortSignal | undefined, shared: boolean) =>
    new Promise<string>((resolve) => {
      calls.push({ signal, shared, answer: resolve });
    });
  return { calls, send };
}

describe("SharedQueries", () => {
  it("sends one request for identical queries and gives its answer to each", async () => {
    const shared = new SharedQueries<string>(() => 0);
    const { calls, send } = upstream();
    const answers = Array.from({ length: 5 }, () =>
      shared.answer(get("/v1/kv/a?index=7"), undefined, send, () => "cancelled"),
    );
    const other = shared.answer(get("/v1/kv/b?index=7"), undefined, send, () => "cancelled");
    expect(calls.length).toBe(2);
    expect(calls.every((c) => c.shared)).toBe(true);
    calls[0]!.answer("a");
    calls[1]!.answer("b");
    expect(await Promise.all(answers)).toEqual(["a", "a", "a", "a", "a"]);
    expect(await other).toBe("b");
    // Answered: the next query starts a request of its own.
    expect(shared.size).toBe(0);
    void shared.answer(get("/v1/kv/a?index=7"), undefined, send, () => "cancelled");
    expect(calls.length).toBe(3);
  });

  it("sends what it does not share as it is, with the caller's signal", async () => {
    const shared = new SharedQueries<string>(() => 0);
    const { calls, send } = upstream();
    const signal = new AbortController().signal;
    void shared.answer(get("/v1/kv/a"), signal, send, () => "cancelled");
    void shared.answer(get("/v1/kv/a"), signal, send, () => "cancelled");
    expect(calls.map((c) => [c.signal, c.shared])).toEqual([
      [signal, false],
      [signal, false],
    ]);
    expect(shared.size).toBe(0);
  });

  it("starts a new request for a query that comes more than wait/16 after the first", () => {
    let now = 0;
    const shared = new SharedQueries<string>(() => now);
    const { calls, send } = upstream();
    const ask = () => void shared.answer(get("/v1/kv/a?index=7&wait=16s"), undefined, send, () => "");
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
      shared.answer(get("/v1/kv/a?index=7"), c.signal, send, () => "cancelled"),
    );
    const upstreamSignal = calls[0]!.signal!;
    callers[0]!.abort();
    expect(await answers[0]).toBe("cancelled");
    expect(upstreamSignal.aborted).toBe(false);
    // A newcomer still joins the request the remaining caller waits on.
    const late = shared.answer(get("/v1/kv/a?index=7"), undefined, send, () => "cancelled");
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
    const answer = shared.answer(get("/v1/kv/a?index=7"), caller.signal, send, () => "cancelled");
    caller.abort();
    expect(await answer).toBe("cancelled");
    expect(calls[0]!.signal!.aborted).toBe(true);
    expect(shared.size).toBe(0);
    void shared.answer(get("/v1/kv/a?index=7"), undefined, send, () => "cancelled");
    expect(calls.length).toBe(2);
    // A caller whose signal had aborted already neither waits nor keeps a request alive.
    const gone = AbortSignal.abort();
    expect(await shared.answer(get("/v1/kv/c?index=7"), gone, send, () => "cancelled")).toBe("cancelled");
    expect(calls[2]!.signal!.aborted).toBe(true);
  });

  it("passes a failure of the request on to every caller", async () => {
    const shared = new SharedQueries<string>(() => 0);
    let fail: (err: Error) => void = () => {};
    const send = () =>
      new Promise<string>((_, reject) => {
        fail = reject;
      });
    const answers = [0, 1].map(() => shared.answer(get("/v1/kv/a?index=7"), undefined, send, () => ""));
    fail(new Error("boom"));
    for (const a of answers) await expect(a).rejects.toThrow("boom");
    expect(shared.size).toBe(0);
  });
});

describe("a TunnelPool's identical blocking queries, on a real server", () => {
  let server: TunnelServer;
  const log = pino({ level: "silent" });
  const req = (path: string, init?: RequestInit) => new Request(`http://client${path}`, init);

  beforeAll(async () => {
    server = await startTunnelServer("tunnel-shared");
    await ready(server);
  }, 30_000);

  afterAll(async () => {
    await server?.dispose();
  });

  const waiting = () => server.server.store.watches.waiting;

  it("holds one query on the server for many identical ones, and answers each with the change", async () => {
    const p = new TunnelPool({ servers: () => [server.ref], log });
    const put = (value: string) => p.forward(req("/v1/kv/shared", { method: "PUT", body: value }));
    expect((await put("1")).status).toBe(200);
    const index = (await p.forward(req("/v1/kv/shared"))).headers.get("x-consul-index");
    const before = waiting();
    const path = `/v1/kv/shared?index=${index}&wait=30s`;
    const same = Array.from({ length: 20 }, () => p.forward(req(path)));
    const otherToken = p.forward(req(path, { headers: { "X-Consul-Token": "someone-else" } }));
    const consistent = p.forward(req(`${path}&consistent`));
    // Not shared by the agent; the server answers them alike, in one frame (answer-groups.ts).
    const ownWaits = [31, 32, 33].map((s) => p.forward(req(`/v1/kv/shared?index=${index}&wait=${s}s`)));
    await until(() => waiting() === before + 6);
    expect((await put("2")).status).toBe(200);
    const answers = await Promise.all(same);
    const bodies = await Promise.all(answers.map((a) => a.text()));
    expect(new Set(bodies).size).toBe(1);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const entry = (JSON.parse(bodies[0]!) as [{ Value: string }])[0]!;
    expect(Buffer.from(entry.Value, "base64").toString()).toBe("2");
    expect(Number(answers[0]!.headers.get("x-consul-index"))).toBeGreaterThan(Number(index));
    expect((await otherToken).status).toBe(200);
    expect((await consistent).status).toBe(200);
    for (const own of await Promise.all(ownWaits)) expect(await own.text()).toBe(bodies[0]);
    p.close();
  });

  it("keeps the server's query while one caller waits, and drops it when the last goes", async () => {
    const p = new TunnelPool({ servers: () => [server.ref], log });
    const index = (await p.forward(req("/v1/kv/shared"))).headers.get("x-consul-index");
    const before = waiting();
    const callers = [new AbortController(), new AbortController()];
    const held = callers.map((c) =>
      p.forward(req(`/v1/kv/shared?index=${index}&wait=60s`, { signal: c.signal })),
    );
    await until(() => waiting() === before + 1);
    callers[0]!.abort();
    expect((await held[0])?.status).toBe(500);
    // The other caller still waits on the server's query.
    await new Promise((r) => setTimeout(r, 100));
    expect(waiting()).toBe(before + 1);
    callers[1]!.abort();
    expect((await held[1])?.status).toBe(500);
    await until(() => waiting() === before);
    p.close();
  });
});
