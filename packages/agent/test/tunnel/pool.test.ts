// A client's tunnel pool against real in-process servers: KV through the tunnel, a blocking query, many
// requests on one connection, cancellation, failover to a second server, and no servers at all.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { NO_SERVERS, type ServerRef, TUNNEL_PATH, TunnelPool } from "../../src/tunnel/index.js";
import { ready, startTunnelServer, type TunnelServer, until } from "./harness.js";

const log = pino({ level: "silent" });
let a: TunnelServer;
let b: TunnelServer;

beforeAll(async () => {
  [a, b] = await Promise.all([startTunnelServer("tunnel-a"), startTunnelServer("tunnel-b")]);
  await Promise.all([ready(a), ready(b)]);
}, 30_000);

afterAll(async () => {
  await Promise.all([a?.dispose(), b?.dispose()]);
});

const req = (path: string, init?: RequestInit) => new Request(`http://client${path}`, init);

function pool(servers: () => ServerRef[], defaultToken = ""): TunnelPool {
  return new TunnelPool({ servers, log, defaultToken: () => defaultToken, random: () => 0 });
}

describe("the tunnel route", () => {
  it("closes a connection that sends a malformed frame", async () => {
    const ws = new WebSocket(`ws://${b.ref.rpcAddress}${TUNNEL_PATH}`);
    await new Promise((resolve) => ws.on("open", resolve));
    ws.send(Buffer.from([0xc1]));
    const code = await new Promise<number>((resolve) => ws.on("close", resolve));
    expect(code).toBe(1002);
  });
});

describe("TunnelPool", () => {
  it("puts and gets a key through a server, with its headers", async () => {
    const p = pool(() => [a.ref]);
    const put = await p.forward(req("/v1/kv/greeting?flags=42", { method: "PUT", body: "hello" }));
    expect(put.status).toBe(200);
    expect(await put.text()).toBe("true");
    const get = await p.forward(req("/v1/kv/greeting"));
    expect(get.status).toBe(200);
    expect(Number(get.headers.get("x-consul-index"))).toBeGreaterThan(0);
    const [entry] = (await get.json()) as [{ Value: string; Flags: number }];
    expect(Buffer.from(entry.Value, "base64").toString()).toBe("hello");
    expect(entry.Flags).toBe(42);
    const raw = await p.forward(req("/v1/kv/greeting?raw"));
    expect(await raw.text()).toBe("hello");
    expect((await p.forward(req("/v1/kv/missing"))).status).toBe(404);
    p.close();
  });

  it("forwards the bytes and headers the API route built, without reading its Response back", async () => {
    const p = pool(() => [a.ref]);
    const before = a.bodyReads;
    const streamed = a.requestBodyReads;
    const put = await p.forward(req("/v1/kv/known/one", { method: "PUT", body: "x" }));
    expect(await put.text()).toBe("true");
    // The sent body's bytes were taken as they came, not streamed out of a Request.
    expect(a.requestBodyReads).toBe(streamed);
    const get = await p.forward(req("/v1/kv/known/one"));
    expect([get.status, get.headers.get("content-type"), get.headers.get("vary")]).toEqual([
      200,
      "application/json",
      "Accept-Encoding",
    ]);
    expect(Number(get.headers.get("x-consul-index"))).toBeGreaterThan(0);
    expect(((await get.json()) as [{ Key: string }])[0]!.Key).toBe("known/one");
    const missing = await p.forward(req("/v1/kv/known/none"));
    expect([missing.status, await missing.text()]).toEqual([404, ""]);
    expect(a.bodyReads).toBe(before);
    // Any other answer (here an error's) is read from its Response.
    const refused = await p.forward(req("/v1/kv/known/one?index=soon"));
    expect([refused.status, a.bodyReads]).toEqual([400, before + 1]);
    // The size limit holds for bytes taken as they came.
    const large = await p.forward(req("/v1/kv/known/large", { method: "PUT", body: "x".repeat(600_000) }));
    expect([large.status, await large.text()]).toEqual([413, expect.stringMatching(/too large/i)]);
    p.close();
  });

  it("holds a blocking query until the key changes, with other requests flowing meanwhile", async () => {
    const p = pool(() => [a.ref]);
    const first = await p.forward(req("/v1/kv/watched", { method: "PUT", body: "1" }));
    expect(await first.text()).toBe("true");
    const index = (await p.forward(req("/v1/kv/watched"))).headers.get("x-consul-index");
    const started = Date.now();
    const blocked = p.forward(req(`/v1/kv/watched?index=${index}&wait=10s`));
    await new Promise((r) => setTimeout(r, 300));
    const others = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        p.forward(req(`/v1/kv/many/${i}`, { method: "PUT", body: `${i}` })),
      ),
    );
    expect(others.every((r) => r.status === 200)).toBe(true);
    await p.forward(req("/v1/kv/watched", { method: "PUT", body: "2" }));
    const answer = await blocked;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    const [entry] = (await answer.json()) as [{ Value: string }];
    expect(Buffer.from(entry.Value, "base64").toString()).toBe("2");
    p.close();
  });

  it("cancels a blocking query on the server when its caller goes away", async () => {
    const p = pool(() => [a.ref]);
    const index = (await p.forward(req("/v1/kv/watched"))).headers.get("x-consul-index");
    const waiting = () => a.server.store.watches.waiting;
    const before = waiting();
    const abort = new AbortController();
    const blocked = p.forward(req(`/v1/kv/watched?index=${index}&wait=60s`, { signal: abort.signal }));
    await until(() => waiting() > before);
    abort.abort();
    expect((await blocked).status).toBe(500);
    await until(() => waiting() === before);
    p.close();
  });

  it("hears the Raft leader from its server on connecting", async () => {
    const id = a.server.self.id;
    const p = pool(() => [{ ...a.ref, id }]);
    expect((await p.forward(req("/v1/status/leader"))).status).toBe(200);
    await until(() => p.reportedLeader === id);
    // Its own server leads: no second connection.
    expect(await p.leaderServer()).toBeUndefined();
    p.close();
  });

  it("answers 500 'No known Consul servers' when it knows none", async () => {
    const p = pool(() => []);
    const r = await p.forward(req("/v1/kv/greeting"));
    expect(r.status).toBe(500);
    expect(await r.text()).toBe(NO_SERVERS);
  });

  it("skips a server it cannot reach", async () => {
    const p = pool(() => [{ name: "gone", rpcAddress: "127.0.0.1:1" }, a.ref]);
    const r = await p.forward(req("/v1/status/leader"));
    expect(r.status).toBe(200);
    expect(await p.currentServer()).toBe("tunnel-a");
    p.close();
  });

  it("adds the default token to requests that carry none", async () => {
    const p = pool(() => [a.ref], "default-secret");
    const tokenSeen = async (init?: RequestInit, path = "/v1/kv/t") => {
      a.received.length = 0;
      await p.forward(req(path, init));
      return a.received[0]?.get("x-consul-token") ?? null;
    };
    expect(await tokenSeen()).toBe("default-secret");
    expect(await tokenSeen({ headers: { "X-Consul-Token": "own" } })).toBe("own");
    expect(await tokenSeen({ headers: { Authorization: "Bearer own" } })).toBe(null);
    expect(await tokenSeen(undefined, "/v1/kv/t?token=own")).toBe(null);
    p.close();
  });

  it("sends new requests elsewhere once gossip reports its server gone, and lets those in flight finish", async () => {
    const p = pool(() => [a.ref, b.ref]);
    expect((await p.forward(req("/v1/kv/gone", { method: "PUT", body: "x" }))).status).toBe(200);
    const first = (await p.currentServer()) === "tunnel-a" ? a : b;
    const second = first === a ? b : a;
    const index = (await p.forward(req("/v1/kv/gone"))).headers.get("x-consul-index");
    const arrived = first.received.length;
    const held = p.forward(req(`/v1/kv/gone?index=${index}&wait=30s`));
    await until(() => first.received.length === arrived + 1);
    p.serverGone(first.ref.name);
    expect((await p.forward(req("/v1/kv/elsewhere", { method: "PUT", body: "y" }))).status).toBe(200);
    expect(await p.currentServer()).toBe(second.ref.name);
    expect(first.received.length).toBe(arrived + 1);
    // The held query still belongs to the first server (gossip may be wrong): a change there answers it.
    const direct = pool(() => [first.ref]);
    expect((await direct.forward(req("/v1/kv/gone", { method: "PUT", body: "z" }))).status).toBe(200);
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(Number(answer.headers.get("x-consul-index"))).toBeGreaterThan(Number(index));
    direct.close();
    p.close();
  });

  it("fails over to another server when its server stops; a write lost in flight answers 500", async () => {
    const p = pool(() => [a.ref, b.ref]);
    expect((await p.forward(req("/v1/kv/failover", { method: "PUT", body: "x" }))).status).toBe(200);
    const first = (await p.currentServer()) === "tunnel-a" ? a : b;
    const second = first === a ? b : a;
    const index = (await p.forward(req("/v1/kv/failover"))).headers.get("x-consul-index");
    const arrived = first.received.length;
    const blocked = p.forward(req(`/v1/kv/failover?index=${index}&wait=30s`));
    first.stall = "/v1/kv/stalled";
    const lostWrite = p.forward(req("/v1/kv/stalled", { method: "PUT", body: "?" }));
    // Only a write that reached the server is lost in flight; one still unsent would go to the other server.
    await until(() => first.received.length === arrived + 2);
    await first.stop();
    // The blocked read is retried on the other server, which has no such key (it is another cluster).
    const moved = await blocked;
    expect(moved.status).toBe(404);
    expect(await p.currentServer()).toBe(second.ref.name);
    const lost = await lostWrite;
    expect(lost.status).toBe(500);
    expect(await lost.text()).toMatch(/^rpc error making call: .*may or may not have been applied$/);
    const put = await p.forward(req("/v1/kv/after", { method: "PUT", body: "y" }));
    expect(put.status).toBe(200);
    p.close();
  });
});
