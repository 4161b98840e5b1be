// Identical blocking queries to the HTTP API share one run (shared-fetch.ts): a real server through the
// HTTP edge, each query on its own connection, counting the queries the store holds.
import { type ClientRequest, request } from "node:http";
import { connect } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { b64, startServer, type TestServer } from "./harness.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer({}, { share: true });
});
afterAll(() => s.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One GET on its own connection (from `from`, a loopback address); `sent` gets the request, to abort it. */
function get(
  path: string,
  headers: Record<string, string> = {},
  sent?: (r: ClientRequest) => void,
  from = "127.0.0.1",
) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(`${s.url}${path}`, { agent: false, headers, localAddress: from }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end();
    sent?.(req);
  });
}

/** Writes `head` on a connection of its own; resolves with what came back once it ends with a body "v2". */
function raw(head: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(s.url).port), "127.0.0.1", () => socket.write(head));
    let got = "";
    socket.on("data", (c: Buffer) => {
      got += c.toString();
      if (got.endsWith("v2")) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on("error", reject);
  });
}

const waiting = () => s.backend.store.watches.waiting;

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
}

async function indexOf(path: string): Promise<number> {
  return Number((await get(path)).headers["x-consul-index"]);
}

describe("identical blocking queries through the HTTP API", () => {
  it("are held as one query, and each caller gets the change", async () => {
    await s.req("PUT", "/v1/kv/shared/k", "v1");
    const index = await indexOf("/v1/kv/shared/k");
    const before = waiting();
    const path = `/v1/kv/shared/k?index=${index}&wait=30s`;
    const same = Array.from({ length: 50 }, () => get(path));
    const otherToken = get(path, { "X-Consul-Token": "someone-else" });
    const consistent = [0, 1].map(() => get(`${path}&consistent`));
    // One run for the 50, one for the other token, one for each ?consistent read.
    await until(() => waiting() === before + 4);

    expect(await (await s.req("PUT", "/v1/kv/shared/k", "v2")).json()).toBe(true);
    const changed = await indexOf("/v1/kv/shared/k");
    for (const a of await Promise.all([...same, otherToken, ...consistent])) {
      expect(a.status).toBe(200);
      expect(Number(a.headers["x-consul-index"])).toBe(changed);
      expect(a.headers["x-consul-knownleader"]).toBe("true");
      expect(a.headers.vary).toBe("Accept-Encoding");
      const [entry] = JSON.parse(a.body.toString()) as [{ Key: string; Value: string }];
      expect([entry.Key, entry.Value]).toEqual(["shared/k", b64("v2")]);
    }
    expect(waiting()).toBe(before);
  });

  it("from different peer addresses are held apart (near=_ip sorts by the peer)", async () => {
    await s.req("PUT", "/v1/kv/shared/peers", "p1");
    const index = await indexOf("/v1/kv/shared/peers");
    const before = waiting();
    const path = `/v1/kv/shared/peers?index=${index}&wait=30s`;
    const one = [0, 1].map(() => get(path));
    const other = get(path, {}, undefined, "127.0.0.2");
    await until(() => waiting() === before + 2);
    await s.req("PUT", "/v1/kv/shared/peers", "p2");
    for (const a of await Promise.all([...one, other])) {
      const [entry] = JSON.parse(a.body.toString()) as [{ Value: string }];
      expect(entry.Value).toBe(b64("p2"));
    }
  });

  it("answer alike a caller whose exchange the edge leaves to Node (HTTP/1.0)", async () => {
    await s.req("PUT", "/v1/kv/shared/old", "v1");
    const index = await indexOf("/v1/kv/shared/old");
    const path = `/v1/kv/shared/old?raw&index=${index}&wait=30s`;
    const before = waiting();
    // The same headers, so one run: only the request line tells them apart.
    const modern = raw(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const old = raw(`GET ${path} HTTP/1.0\r\nHost: x\r\n\r\n`);
    await until(() => waiting() === before + 1);
    await s.req("PUT", "/v1/kv/shared/old", "v2");
    for (const answer of await Promise.all([modern, old])) {
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(answer).toMatch(/\r\nContent-Type: text\/plain\r\n/i);
      expect(answer.endsWith("\r\n\r\nv2")).toBe(true);
    }
  });

  it("give each caller the answer gzipped when they asked for it", async () => {
    const big = "x".repeat(4_000);
    await s.req("PUT", "/v1/kv/shared/big", big);
    const index = await indexOf("/v1/kv/shared/big");
    const before = waiting();
    const path = `/v1/kv/shared/big?index=${index}&wait=30s`;
    const zipped = [0, 1, 2].map(() => get(path, { "Accept-Encoding": "gzip" }));
    await until(() => waiting() === before + 1);
    await s.req("PUT", "/v1/kv/shared/big", `${big}!`);
    for (const a of await Promise.all(zipped)) {
      expect(a.headers["content-encoding"]).toBe("gzip");
      const [entry] = JSON.parse(gunzipSync(a.body).toString()) as [{ Value: string }];
      expect(Buffer.from(entry.Value, "base64").toString()).toBe(`${big}!`);
    }
  });

  it("share answers that are not memoized (a catalog list), read once", async () => {
    const services = await get("/v1/catalog/services");
    const index = Number(services.headers["x-consul-index"]);
    const before = waiting();
    const path = `/v1/catalog/services?index=${index}&wait=30s`;
    const held = Array.from({ length: 5 }, () => get(path));
    await until(() => waiting() === before + 1);
    await s.json("PUT", "/v1/catalog/register", {
      Node: "shared-node",
      Address: "10.0.0.9",
      Service: { Service: "shared-web", Port: 80 },
    });
    const bodies = new Set<string>();
    for (const a of await Promise.all(held)) {
      expect(a.status).toBe(200);
      expect(Number(a.headers["x-consul-index"])).toBeGreaterThan(index);
      bodies.add(a.body.toString());
    }
    expect(bodies.size).toBe(1);
    expect(Object.keys(JSON.parse([...bodies][0]!) as object)).toContain("shared-web");
  });

  it("run out their wait together, and answer with what they had", async () => {
    await s.req("PUT", "/v1/kv/shared/quiet", "q");
    const index = await indexOf("/v1/kv/shared/quiet");
    const started = performance.now();
    const held = [0, 1, 2].map(() => get(`/v1/kv/shared/quiet?index=${index}&wait=1s`));
    for (const a of await Promise.all(held)) {
      expect([a.status, Number(a.headers["x-consul-index"])]).toEqual([200, index]);
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
  });

  it("keep the held query while one caller waits, and drop it when the last has gone", async () => {
    await s.req("PUT", "/v1/kv/shared/gone", "g");
    const index = await indexOf("/v1/kv/shared/gone");
    const before = waiting();
    const requests: ClientRequest[] = [];
    const held = [0, 1].map(() =>
      get(`/v1/kv/shared/gone?index=${index}&wait=60s`, {}, (r) => requests.push(r)).catch(() => "gone"),
    );
    await until(() => waiting() === before + 1);
    requests[0]!.destroy();
    expect(await held[0]).toBe("gone");
    await new Promise((r) => setTimeout(r, 100));
    expect(waiting()).toBe(before + 1);
    requests[1]!.destroy();
    expect(await held[1]).toBe("gone");
    await until(() => waiting() === before);
  });
});
