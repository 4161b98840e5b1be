// A client agent's identical blocking queries share one request to the server (@cairn/api's
// shared-queries.ts): through a TunnelPool against a real in-process server, counting the queries the server
// holds.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { TunnelPool } from "../../src/tunnel/index.js";
import { leadingTunnelServer, until } from "./harness.js";

describe("a TunnelPool's identical blocking queries, on a real server", () => {
  const server = leadingTunnelServer("tunnel-shared");
  const log = pino({ level: "silent" });
  const req = (path: string, init?: RequestInit) => new Request(`http://client${path}`, init);

  const waiting = () => server().server.store.watches.waiting;

  it("holds one query on the server for many identical ones, and answers each with the change", async () => {
    const p = new TunnelPool({ servers: () => [server().ref], log });
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
    const p = new TunnelPool({ servers: () => [server().ref], log });
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
