import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./harness.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("routing and errors", () => {
  it("an unknown /v1 path is a 404 with Consul's text", async () => {
    const res = await s.req("GET", "/v1/nope");
    expect(res.status).toBe(404);
    expect(await res.text()).toBe("Invalid URL path: not a recognized HTTP API endpoint");
  });

  it("a wrong method is a 405 with an Allow header", async () => {
    const res = await s.req("POST", "/v1/kv/x");
    expect(res.status).toBe(405);
    expect(await res.text()).toBe("method POST not allowed");
    expect(res.headers.get("allow")).toBe("OPTIONS,GET,PUT,DELETE");
    expect((await s.req("GET", "/v1/txn")).status).toBe(405);
    const options = await s.req("OPTIONS", "/v1/kv/x");
    expect(options.status).toBe(200);
    expect(options.headers.get("allow")).toBe("OPTIONS,GET,PUT,DELETE");
    expect((await s.req("GET", "/v1/session/create")).status).toBe(405);
  });

  it("conflicting consistency flags are a 400", async () => {
    const res = await s.req("GET", "/v1/kv/x?stale&consistent");
    expect(res.status).toBe(400);
    expect(await res.text()).toBe("Cannot specify ?stale with ?consistent, conflicting semantics.");
  });

  it.each([
    ["index=abc", "Invalid index"],
    ["wait=forever", "Invalid wait time"],
    ["max_stale=x", 'Invalid max_stale value "x"'],
  ])("a bad %s is a 400", async (query, reason) => {
    const res = await s.req("GET", `/v1/kv/x?${query}`);
    expect(res.status).toBe(400);
    expect(await res.text()).toBe(reason);
  });

  it("accepts the token in every spelling without changing the answer", async () => {
    const spellings: Record<string, string>[] = [
      { "X-Service-Token": "t" },
      { "X-Consul-Token": "t" },
      { Authorization: "Bearer t" },
      { "X-Service-Namespace": "default" },
      { "X-Consul-Namespace": "default" },
    ];
    for (const headers of spellings) {
      expect((await s.req("GET", "/v1/kv/x", undefined, headers)).status).toBe(404);
    }
    expect((await s.req("GET", "/v1/kv/x?token=t&ns=default")).status).toBe(404);
  });
});

describe("status", () => {
  it("leader is a JSON string, peers a JSON array", async () => {
    expect(await (await s.req("GET", "/v1/status/leader")).json()).toBe("127.0.0.1:8300");
    expect(await (await s.req("GET", "/v1/status/peers")).json()).toEqual(["127.0.0.1:8300"]);
  });
});

describe("snapshot", () => {
  it("save streams the state with its index; restore brings it back", async () => {
    await s.req("PUT", "/v1/kv/snap/a", "before");
    const saved = await s.req("GET", "/v1/snapshot");
    expect(saved.status).toBe(200);
    const index = Number(saved.headers.get("X-Service-Index"));
    expect(index).toBeGreaterThan(0);
    expect(saved.headers.get("X-Consul-Index")).toBe(String(index));
    const archive = new Uint8Array(await saved.arrayBuffer());
    expect(archive.byteLength).toBeGreaterThan(0);

    await s.req("PUT", "/v1/kv/snap/a", "after");
    await s.req("PUT", "/v1/kv/snap/b", "new");
    expect((await s.req("PUT", "/v1/snapshot", archive)).status).toBe(200);
    expect(await (await s.req("GET", "/v1/kv/snap/a?raw")).text()).toBe("before");
    expect((await s.req("GET", "/v1/kv/snap/b")).status).toBe(404);
    // Writes continue above the restored index.
    expect((await s.req("PUT", "/v1/kv/snap/c", "x")).status).toBe(200);
  });

  it("a garbage restore is refused and changes nothing", async () => {
    await s.req("PUT", "/v1/kv/snap/keep", "k");
    const res = await s.req("PUT", "/v1/snapshot", "not a snapshot");
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect((await s.req("GET", "/v1/kv/snap/keep")).status).toBe(200);
  });
});

describe("blocking queries", () => {
  const indexOf = (res: Response) => Number(res.headers.get("X-Service-Index"));

  it("wakes when the watched key changes", async () => {
    await s.req("PUT", "/v1/kv/block/a", "1");
    const index = indexOf(await s.req("GET", "/v1/kv/block/a"));
    const started = Date.now();
    const pending = s.req("GET", `/v1/kv/block/a?index=${index}&wait=10s`);
    await new Promise((r) => setTimeout(r, 100));
    await s.req("PUT", "/v1/kv/block/a", "2");
    const res = await pending;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(indexOf(res)).toBeGreaterThan(index);
    expect(((await res.json()) as { Value: string }[])[0]!.Value).toBe(Buffer.from("2").toString("base64"));
  });

  it("a recursive blocking query wakes on any change under the prefix, not outside it", async () => {
    await s.req("PUT", "/v1/kv/blockdir/a", "1");
    const index = indexOf(await s.req("GET", "/v1/kv/blockdir/?recurse"));
    const pending = s.req("GET", `/v1/kv/blockdir/?recurse&index=${index}&wait=3s`);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await s.req("PUT", "/v1/kv/elsewhere", "x");
    await new Promise((r) => setTimeout(r, 150));
    expect(settled).toBe(false);
    await s.req("PUT", "/v1/kv/blockdir/new/deep", "2");
    expect(indexOf(await pending)).toBeGreaterThan(index);
  });

  it("returns the same index when nothing changed within wait", async () => {
    await s.req("PUT", "/v1/kv/block/quiet", "1");
    const index = indexOf(await s.req("GET", "/v1/kv/block/quiet"));
    const started = Date.now();
    const res = await s.req("GET", `/v1/kv/block/quiet?index=${index}&wait=300ms`);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(300 + 300 / 16 + 500);
    expect(indexOf(res)).toBe(index);
  });

  it("answers at once when index is 0", async () => {
    const started = Date.now();
    await s.req("GET", "/v1/kv/block/quiet?index=0&wait=5s");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("answers at once when the client's index is ahead of the store (after a restore)", async () => {
    const started = Date.now();
    const res = await s.req("GET", "/v1/kv/block/quiet?index=999999999&wait=5s");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(indexOf(res)).toBeLessThan(999999999);
  });

  it("blocks on 404s too and wakes when the key appears", async () => {
    const miss = await s.req("GET", "/v1/kv/block/later");
    expect(miss.status).toBe(404);
    const pending = s.req("GET", `/v1/kv/block/later?index=${indexOf(miss)}&wait=10s`);
    await new Promise((r) => setTimeout(r, 50));
    await s.req("PUT", "/v1/kv/block/later", "here");
    expect((await pending).status).toBe(200);
  });

  it("a client that disconnects mid-wait leaves no waiter behind", async () => {
    await s.req("PUT", "/v1/kv/block/gone", "1");
    const index = indexOf(await s.req("GET", "/v1/kv/block/gone"));
    const abort = new AbortController();
    const pending = fetch(`${s.url}/v1/kv/block/gone?index=${index}&wait=30s`, {
      signal: abort.signal,
    }).catch(() => "aborted");
    await new Promise((r) => setTimeout(r, 100));
    expect(s.backend.store.watches.waiting).toBe(1);
    abort.abort();
    expect(await pending).toBe("aborted");
    await new Promise((r) => setTimeout(r, 100));
    expect(s.backend.store.watches.waiting).toBe(0);
  });

  it("session lists block and wake on session changes", async () => {
    const list = await s.req("GET", "/v1/session/list");
    const pending = s.req("GET", `/v1/session/list?index=${indexOf(list)}&wait=10s`);
    await new Promise((r) => setTimeout(r, 50));
    await s.req(
      "PUT",
      "/v1/txn",
      JSON.stringify([{ Node: { Verb: "set", Node: { Node: "agent-one", Address: "127.0.0.1" } } }]),
    );
    await s.req("PUT", "/v1/session/create", JSON.stringify({ Checks: [] }));
    const res = await pending;
    expect(indexOf(res)).toBeGreaterThan(indexOf(list));
    expect(await res.json()).toHaveLength(1);
  });
});
