import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { b64, startServer, type TestServer } from "./harness.js";

interface Answer {
  status: number;
  index: number;
  body: string;
  contentType: string | undefined;
  /** How long after the request was sent its answer ended (ms). */
  heldMs: number;
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

/** One GET on its own connection (1,000 of these must all be held at once, no pool limit in the way). */
function get(path: string): Promise<Answer> {
  const sent = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}${path}`, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          index: Number(res.headers["x-consul-index"]),
          body: Buffer.concat(chunks).toString(),
          contentType: res.headers["content-type"],
          heldMs: performance.now() - sent,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * Sends `count` blocking GETs of `path`, 200 at a time (so the listen backlog never overflows), and
 * resolves once the server holds them all.
 */
async function hold(path: string, count: number): Promise<Array<Promise<Answer>>> {
  const answers: Array<Promise<Answer>> = [];
  while (answers.length < count) {
    const batch = Math.min(200, count - answers.length);
    const target = s.backend.store.watches.waiting + batch;
    for (let i = 0; i < batch; i++) answers.push(get(path));
    for (let i = 0; i < 1_000 && s.backend.store.watches.waiting < target; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(s.backend.store.watches.waiting).toBe(target);
  }
  return answers;
}

describe("blocking queries held in bulk", () => {
  it("1,000 waiters on one key all get the new value and index; other keys' and shapes' waiters are not confused", async () => {
    await s.req("PUT", "/v1/kv/herd/other", "o1");
    await s.req("PUT", "/v1/kv/elsewhere/x", "e1");
    // Written last, so its index is also the highest under herd/ (every shape below blocks on it).
    await s.req("PUT", "/v1/kv/herd/k", "v1");
    const index = (await get("/v1/kv/herd/k")).index;
    const at = `index=${index}`;

    const onKey = await hold(`/v1/kv/herd/k?${at}&wait=30s`, 1_000);
    const raw = await hold(`/v1/kv/herd/k?raw&${at}&wait=30s`, 20);
    const recurse = await hold(`/v1/kv/herd/?recurse&${at}&wait=30s`, 20);
    const keys = await hold(`/v1/kv/herd/?keys&separator=/&${at}&wait=30s`, 20);
    // Not covered by the change: these run out their wait and answer with what they had.
    const sibling = await hold(`/v1/kv/herd/other?${at}&wait=3s`, 20);
    const otherPrefix = await hold(`/v1/kv/elsewhere/?recurse&${at}&wait=3s`, 20);

    const put = await s.req("PUT", "/v1/kv/herd/k", "v2");
    expect(await put.json()).toBe(true);
    // The change took every covered waiter off the watch lists as it applied; the 40 others still wait.
    expect(s.backend.store.watches.waiting).toBe(40);
    const changed = (await get("/v1/kv/herd/k")).index;
    expect(changed).toBeGreaterThan(index);

    for (const a of await Promise.all(onKey)) {
      expect(a.status).toBe(200);
      expect(a.index).toBe(changed);
      expect(a.contentType).toBe("application/json");
      const [entry] = JSON.parse(a.body) as Array<{ Key: string; Value: string; ModifyIndex: number }>;
      expect(entry).toMatchObject({ Key: "herd/k", Value: b64("v2"), ModifyIndex: changed });
    }
    for (const a of await Promise.all(raw)) {
      expect([a.status, a.index, a.body, a.contentType]).toEqual([200, changed, "v2", "text/plain"]);
    }
    for (const a of await Promise.all(recurse)) {
      const entries = JSON.parse(a.body) as Array<{ Key: string; Value: string }>;
      expect(a.index).toBe(changed);
      expect(entries.map((e) => [e.Key, e.Value])).toEqual([
        ["herd/k", b64("v2")],
        ["herd/other", b64("o1")],
      ]);
    }
    for (const a of await Promise.all(keys)) {
      expect([a.index, JSON.parse(a.body)]).toEqual([changed, ["herd/k", "herd/other"]]);
    }
    // Whatever the machine's load, each of the others answered only when its own wait ran out.
    for (const a of await Promise.all(sibling)) {
      const [entry] = JSON.parse(a.body) as Array<{ Key: string; Value: string }>;
      expect([a.status, entry?.Key, entry?.Value]).toEqual([200, "herd/other", b64("o1")]);
      expect(a.index).toBeLessThan(changed);
      expect(a.heldMs).toBeGreaterThanOrEqual(2_990);
    }
    for (const a of await Promise.all(otherPrefix)) {
      const entries = JSON.parse(a.body) as Array<{ Key: string }>;
      expect([a.status, entries.map((e) => e.Key)]).toEqual([200, ["elsewhere/x"]]);
      expect(a.index).toBeLessThan(changed);
      expect(a.heldMs).toBeGreaterThanOrEqual(2_990);
    }
    expect(s.backend.store.watches.waiting).toBe(0);
  });

  it("a waiter on a missing key whose wait expires gets the 404 with the same index", async () => {
    const miss = await get("/v1/kv/herd/absent");
    expect(miss.status).toBe(404);
    const started = Date.now();
    const again = await get(`/v1/kv/herd/absent?index=${miss.index}&wait=200ms`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect([again.status, again.index, again.body]).toEqual([404, miss.index, ""]);
  });

  it("listings filtered per token are not shared between tokens at the same index", async () => {
    // Token "narrow" may read herd/k only; everyone else reads everything.
    const acl = await startServer(
      {},
      {
        authorizer: {
          authorize: (token, _ns, _type, name) =>
            token !== "narrow" || name === "herd/k" ? "allow" : "deny",
        },
      },
    );
    try {
      await acl.req("PUT", "/v1/kv/herd/k", "v");
      await acl.req("PUT", "/v1/kv/herd/other", "o");
      for (const shape of ["keys", "recurse"]) {
        const wide = await acl.json<Array<string | { Key: string }>>(
          "GET",
          `/v1/kv/herd/?${shape}&token=wide`,
        );
        const narrow = await acl.json<Array<string | { Key: string }>>(
          "GET",
          `/v1/kv/herd/?${shape}&token=narrow`,
        );
        const names = (list: Array<string | { Key: string }>) =>
          list.map((item) => (typeof item === "string" ? item : item.Key));
        expect(names(wide.body), shape).toEqual(["herd/k", "herd/other"]);
        expect(names(narrow.body), shape).toEqual(["herd/k"]);
      }
    } finally {
      await acl.close();
    }
  });
});
