import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClusterBackend, LeaderContact, ReadMode } from "../../src/backend.js";
import { b64, startServer, type TestServer } from "./harness.js";

const barriers: [ReadMode, number | undefined][] = [];
let contact: LeaderContact = { knownLeader: false, lastContactMs: 1234 };

let s: TestServer;
beforeAll(async () => {
  s = await startServer(
    {},
    {
      // A follower's view of the cluster: records each read barrier and reports a stale leader contact.
      wrap: (local) =>
        new Proxy(local, {
          get(target, prop, receiver) {
            if (prop === "readBarrier") {
              return async (mode: ReadMode, maxStaleMs?: number) => {
                barriers.push([mode, maxStaleMs]);
                return contact;
              };
            }
            const value = Reflect.get(target, prop, receiver);
            return typeof value === "function" ? value.bind(target) : value;
          },
        }) as ClusterBackend,
    },
  );
  await s.req("PUT", "/v1/kv/c/a", "1");
});
afterAll(() => s.close());

describe("consistency modes", () => {
  it.each([
    ["", "default", undefined],
    ["?stale", "stale", undefined],
    ["?consistent", "consistent", undefined],
    ["?max_stale=2s", "stale", 2000],
    ["?stale&max_stale=1m", "stale", 60000],
  ])("GET %s asks the backend for a %s read", async (query, mode, maxStale) => {
    barriers.length = 0;
    expect((await s.req("GET", `/v1/kv/c/a${query}`)).status).toBe(200);
    expect(barriers).toEqual([[mode, maxStale]]);
  });

  it("reports the backend's known-leader and last-contact, 404s included", async () => {
    contact = { knownLeader: false, lastContactMs: 1234.7 };
    for (const path of ["/v1/kv/c/a?stale", "/v1/kv/c/missing?stale", "/v1/session/list?stale"]) {
      const res = await s.req("GET", path);
      expect(res.headers.get("X-Service-KnownLeader")).toBe("false");
      expect(res.headers.get("X-Consul-KnownLeader")).toBe("false");
      expect(res.headers.get("X-Service-LastContact")).toBe("1234");
      expect(res.headers.get("X-Consul-LastContact")).toBe("1234");
    }
    contact = { knownLeader: true, lastContactMs: 0 };
  });

  it("an answer shared between reads of the same data carries each read's own last contact", async () => {
    for (const [ms, want] of [
      [1234.7, "1234"],
      [7, "7"],
      [1234.2, "1234"],
    ] as const) {
      contact = { knownLeader: false, lastContactMs: ms };
      for (const path of [
        "/v1/kv/c/a?stale",
        "/v1/kv/c/a?stale&raw",
        "/v1/kv/c?stale&recurse",
        "/v1/kv/c?stale&keys",
      ]) {
        const res = await s.req("GET", path);
        expect([
          path,
          res.headers.get("X-Service-LastContact"),
          res.headers.get("X-Consul-LastContact"),
        ]).toEqual([path, want, want]);
      }
    }
    contact = { knownLeader: true, lastContactMs: 0 };
  });

  it("a read-only transaction takes the read path; one with a write does not", async () => {
    barriers.length = 0;
    await s.req("PUT", "/v1/txn?consistent", JSON.stringify([{ KV: { Verb: "get", Key: "c/a" } }]));
    expect(barriers).toEqual([["consistent", undefined]]);
    barriers.length = 0;
    const res = await s.req(
      "PUT",
      "/v1/txn?stale",
      JSON.stringify([{ KV: { Verb: "set", Key: "c/b", Value: b64("x") } }]),
    );
    expect(res.status).toBe(200);
    expect(barriers).toEqual([]);
  });

  it("a blocked consistent read confirms again after each wake", async () => {
    const index = Number((await s.req("GET", "/v1/kv/c/a")).headers.get("X-Service-Index"));
    barriers.length = 0;
    const pending = s.req("GET", `/v1/kv/c/a?consistent&index=${index}&wait=5s`);
    await new Promise((r) => setTimeout(r, 50));
    await s.req("PUT", "/v1/kv/c/a", "2");
    expect((await pending).status).toBe(200);
    expect(barriers.filter(([m]) => m === "consistent")).toHaveLength(2);
  });
});
