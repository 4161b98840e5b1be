// The agent's view over its /v1 API: stale reads, the use_cache reuse window, not-found and refusals.
import { describe, expect, it } from "vitest";
import { httpView, ViewError } from "../src/index.js";

function api() {
  const seen: string[] = [];
  const fetch = async (request: Request) => {
    const url = new URL(request.url);
    seen.push(`${url.pathname}${url.search}`);
    if (url.pathname === "/v1/catalog/node/secret") return new Response("Permission denied", { status: 403 });
    if (url.pathname === "/v1/health/service/broken") return new Response("boom", { status: 500 });
    const entry = {
      Node: { Node: "n1", Address: "10.0.0.1", Datacenter: "dc1" },
      Service: { Port: 80 },
      Checks: [],
    };
    return Response.json(url.pathname === "/v1/health/service/web" ? [entry] : []);
  };
  return { seen, fetch };
}

describe("httpView", () => {
  it("reads stale with max_stale when allowed, and consistently-by-default when not", async () => {
    const a = api();
    await httpView({ fetch: a.fetch, allowStale: true, maxStaleMs: 5_000 }).instances("web", "v1");
    expect(a.seen).toEqual(["/v1/health/service/web?tag=v1&stale&max_stale=5000ms"]);
    const b = api();
    await httpView({ fetch: b.fetch, allowStale: false, maxStaleMs: 5_000 }).instances("web", undefined);
    expect(b.seen).toEqual(["/v1/health/service/web"]);
  });

  it("reuses a read for cache_max_age with use_cache, and only then", async () => {
    let t = 0;
    const a = api();
    const view = httpView({
      fetch: a.fetch,
      allowStale: true,
      maxStaleMs: 1_000,
      cacheMaxAgeMs: 1_000,
      now: () => t,
    });
    expect(await view.instances("web", undefined)).toHaveLength(1);
    t = 999;
    await view.instances("web", undefined);
    expect(a.seen).toHaveLength(1);
    t = 1_000;
    await view.instances("web", undefined);
    expect(a.seen).toHaveLength(2);
    const b = api();
    const uncached = httpView({ fetch: b.fetch, allowStale: true, maxStaleMs: 1_000 });
    await uncached.instances("web", undefined);
    await uncached.instances("web", undefined);
    expect(b.seen).toHaveLength(2);
  });

  it("reads another datacenter with ?dc=: unknown is nothing, unanswered an error within remoteTimeoutMs", async () => {
    const seen: string[] = [];
    const view = httpView({
      allowStale: false,
      maxStaleMs: 1_000,
      remoteTimeoutMs: 200,
      fetch: (request) => {
        const url = new URL(request.url);
        seen.push(`${url.pathname}${url.search}`);
        const dc = url.searchParams.get("dc");
        if (dc === "dc9") return new Response("No path to datacenter", { status: 500 });
        if (dc === "cut")
          return new Promise<Response>((_, reject) =>
            request.signal.addEventListener("abort", () => reject(request.signal.reason)),
          );
        return Response.json(url.pathname.startsWith("/v1/query/") ? { Service: "web", Nodes: [] } : []);
      },
    });
    await view.instances("web", "v1", "dc2");
    await view.node("n1", "dc2");
    expect(seen).toEqual(["/v1/health/service/web?tag=v1&dc=dc2", "/v1/catalog/node/n1?dc=dc2"]);
    expect(await view.instances("web", undefined, "dc9")).toEqual([]);
    expect(await view.node("n1", "dc9")).toBeUndefined();
    expect(await view.query("q", undefined, "dc9")).toBeUndefined();
    const started = performance.now();
    await expect(view.instances("web", undefined, "cut")).rejects.toThrow(ViewError);
    await expect(view.query("q", undefined, "cut")).rejects.toThrow(ViewError);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("treats a refused read as nothing visible and a failed one as an error", async () => {
    const view = httpView({ fetch: api().fetch, allowStale: true, maxStaleMs: 1_000 });
    expect(await view.node("secret")).toBeUndefined();
    await expect(view.instances("broken", undefined)).rejects.toThrow(/500 boom/);
  });

  it("without use_cache keeps a name current with a blocking query instead of reading per question", async () => {
    const seen: string[] = [];
    let index = 5;
    let port = 80;
    let changed: () => void = () => {};
    const fetch = async (request: Request) => {
      const url = new URL(request.url);
      seen.push(`${url.pathname}${url.search}`);
      const asked = url.searchParams.get("index");
      if (asked !== null && Number(asked) >= index) {
        await new Promise<void>((resolve, reject) => {
          changed = resolve;
          request.signal.addEventListener("abort", () => reject(new Error("aborted")));
        });
      }
      const entry = { Node: { Node: "n1", Address: "10.0.0.1" }, Service: { Port: port }, Checks: [] };
      return Response.json([entry], { headers: { "X-Consul-Index": String(index) } });
    };
    const view = httpView({ fetch, allowStale: true, maxStaleMs: 1_000 });
    expect((await view.instances("web", undefined))[0]?.port).toBe(80);
    const first = await view.instances("web", undefined);
    expect(first[0]?.port).toBe(80);
    expect(seen[0]).toBe("/v1/health/service/web?stale&max_stale=1000ms");
    expect(seen[1]).toBe("/v1/health/service/web?stale&max_stale=1000ms&index=5&wait=5s");
    expect(seen).toHaveLength(2);
    port = 81;
    index = 6;
    changed();
    const deadline = Date.now() + 5_000;
    while ((await view.instances("web", undefined))[0]?.port !== 81 && Date.now() < deadline)
      await new Promise((r) => setImmediate(r));
    expect((await view.instances("web", undefined))[0]?.port).toBe(81);
    view.close();
  });
});
