// The agent cache's bounds, in process over the real HTTP API (a LocalBackend store): entries expire
// when unused, memory and entry count stay under their budget, and closing answers held requests.
import { createApi, LocalBackend } from "@cairn/api";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../../../../scripts/lib/index.js";
import { AgentCache, type AgentCacheOptions } from "../../src/cache/agent-cache.js";

const caches: AgentCache[] = [];
afterEach(() => {
  for (const c of caches.splice(0)) c.close();
});

async function setup(options: Partial<AgentCacheOptions> = {}) {
  const backend = new LocalBackend();
  const app = createApi({ backend, nodeName: "n", datacenter: "dc1" });
  const cache = new AgentCache({ upstream: app.fetch, log: pino({ level: "silent" }), ...options });
  caches.push(cache);
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await cache.fetch(new Request(`http://agent${path}`, { headers }));
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const register = async (service: string) => {
    const res = await app.fetch(
      new Request("http://agent/v1/catalog/register", {
        method: "PUT",
        body: JSON.stringify({ Node: "n1", Address: "10.0.0.1", Service: { Service: service } }),
      }),
    );
    expect(res.status).toBe(200);
  };
  return { cache, get, register };
}

describe("agent cache bounds", () => {
  it("drops entries unused for the TTL (and their background refresh)", async () => {
    // The cache's clock moves only when the test moves it: a stall between the two reads expires nothing.
    let clock = 1_000_000;
    const { cache, get, register } = await setup({ ttlMs: 200, now: () => clock });
    await register("web");
    expect((await get("/v1/catalog/service/web?cached")).headers.get("x-cache")).toBe("MISS");
    expect((await get("/v1/catalog/service/web?cached")).headers.get("x-cache")).toBe("HIT");
    expect(cache.size).toBe(1);
    clock += 201;
    await waitFor(
      "the unused entry to expire",
      async () => (cache.size === 0 ? true : undefined),
      10_000,
      20,
    );
    expect(cache.bytes).toBe(0);
    expect((await get("/v1/catalog/service/web?cached")).headers.get("x-cache")).toBe("MISS");
  });

  it("keeps memory and the number of entries within budget, evicting the least recently used", async () => {
    const { cache, get, register } = await setup({ maxEntries: 3, maxBytes: 64 * 1024 });
    for (let i = 0; i < 8; i++) await register(`s${i}`);
    for (let i = 0; i < 8; i++) await get(`/v1/catalog/service/s${i}?cached`);
    expect(cache.size).toBe(3);
    expect((await get("/v1/catalog/service/s7?cached")).headers.get("x-cache")).toBe("HIT");
    expect((await get("/v1/catalog/service/s0?cached")).headers.get("x-cache")).toBe("MISS");

    const small = await setup({ maxBytes: 3000 });
    for (let i = 0; i < 8; i++) await small.register(`t${i}`);
    for (let i = 0; i < 8; i++) {
      expect((await small.get(`/v1/catalog/service/t${i}?cached`)).status).toBe(200);
      expect(small.cache.bytes).toBeLessThanOrEqual(3000);
    }
    expect(small.cache.size).toBeGreaterThan(0);
    expect(small.cache.size).toBeLessThan(8);
  });

  it("answers a blocked ?cached query at once when closed", async () => {
    const { cache, get, register } = await setup();
    await register("web");
    const first = await get("/v1/health/service/web?cached");
    const index = first.headers.get("x-consul-index");
    const started = performance.now();
    const held = get(`/v1/health/service/web?cached&index=${index}&wait=5m`);
    setTimeout(() => cache.close(), 100);
    const r = await held;
    expect(r.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5000);
    // Closed: every request goes straight to the API.
    expect((await get("/v1/health/service/web?cached")).headers.get("x-cache")).toBeNull();
  });

  it("the datacenter list is cached simply", async () => {
    const { get } = await setup();
    expect((await get("/v1/catalog/datacenters?cached")).headers.get("x-cache")).toBe("MISS");
    const hit = await get("/v1/catalog/datacenters?cached");
    expect([hit.headers.get("x-cache"), JSON.parse(hit.text)]).toEqual(["HIT", ["dc1"]]);
    expect(
      (await get("/v1/catalog/datacenters?cached", { "Cache-Control": "max-age=0" })).headers.get("x-cache"),
    ).toBe("MISS");
  });

  it("POSTed discovery-chain reads are cached per body", async () => {
    const { cache } = await setup();
    const post = async (body: unknown) => {
      const res = await cache.fetch(
        new Request("http://agent/v1/discovery-chain/web?cached", {
          method: "POST",
          body: JSON.stringify(body),
        }),
      );
      return {
        status: res.status,
        cache: res.headers.get("x-cache"),
        json: (await res.json()) as { Chain: { Protocol: string } },
      };
    };
    const a = await post({ OverrideProtocol: "http" });
    expect([a.status, a.cache, a.json.Chain.Protocol]).toEqual([200, "MISS", "http"]);
    expect((await post({ OverrideProtocol: "http" })).cache).toBe("HIT");
    const b = await post({ OverrideProtocol: "grpc" });
    expect([b.cache, b.json.Chain.Protocol]).toEqual(["MISS", "grpc"]);
  });
});
