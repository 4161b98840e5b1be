import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { b64, registerAgentNode, startServer, type TestServer } from "./harness.js";

interface Entry {
  Key: string;
  Value: string | null;
  Flags: number;
  CreateIndex: number;
  ModifyIndex: number;
  LockIndex: number;
  Session?: string;
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await registerAgentNode(s);
});
afterAll(() => s.close());

const put = (key: string, value: string | Uint8Array, query = "") =>
  s.req("PUT", `/v1/kv/${key}${query}`, value);
const get = async (key: string, query = "") => s.json<Entry[]>("GET", `/v1/kv/${key}${query}`);
const newSession = async (body: unknown = {}) =>
  (await s.json<{ ID: string }>("PUT", "/v1/session/create", body)).body.ID;

function expectReadHeaders(res: Response): void {
  for (const prefix of ["X-Service", "X-Consul"]) {
    expect(Number(res.headers.get(`${prefix}-Index`))).toBeGreaterThan(0);
    expect(res.headers.get(`${prefix}-KnownLeader`)).toBe("true");
    expect(res.headers.get(`${prefix}-LastContact`)).toBe("0");
  }
}

describe("KV read", () => {
  it("keeps two key listings apart whose prefix and separator differ only in where a NUL falls", async () => {
    // Both asked of the same store view: the second must not be served the first's shared answer.
    await put("nul/1", "v");
    await put("nul%00x/2", "v");
    const a = await s.json<string[]>("GET", "/v1/kv/nul?keys&separator=%00x");
    const b = await s.json<string[]>("GET", "/v1/kv/nul%00?keys&separator=x");
    expect(a.body).toEqual(["nul\u0000x", "nul/1"]);
    expect(b.body).toEqual(["nul\u0000x"]);
  });

  it("returns the entry as an array with base64 Value, Flags and indexes", async () => {
    expect(await (await put("read/a", "hello")).json()).toBe(true);
    const { status, body, res } = await get("read/a");
    expect(status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ Key: "read/a", Value: b64("hello"), Flags: 0, LockIndex: 0 });
    expect(body[0]!.CreateIndex).toBe(body[0]!.ModifyIndex);
    expect(Number(res.headers.get("X-Service-Index"))).toBe(body[0]!.ModifyIndex);
    expectReadHeaders(res);
  });

  it("answers 404 for a missing key, with the index and leader headers", async () => {
    const { status, res } = await get("read/missing");
    expect(status).toBe(404);
    expectReadHeaders(res);
  });

  it("refuses GET /v1/kv/ without a key with 400 Missing key name", async () => {
    const res = await s.req("GET", "/v1/kv/");
    expect(res.status).toBe(400);
    expect(await res.text()).toBe("Missing key name");
  });

  it("recurse returns every key under the prefix in order; the index is the highest ModifyIndex", async () => {
    await put("tree/b", "2");
    await put("tree/a", "1");
    await put("tree/c/d", "3");
    const { status, body, res } = await get("tree/", "?recurse");
    expect(status).toBe(200);
    expect(body.map((e) => e.Key)).toEqual(["tree/a", "tree/b", "tree/c/d"]);
    expect(Number(res.headers.get("X-Consul-Index"))).toBe(Math.max(...body.map((e) => e.ModifyIndex)));
    expect((await get("nothing-here/", "?recurse")).status).toBe(404);
  });

  it("raw returns only the stored bytes", async () => {
    await put("raw/k", "plain text");
    const res = await s.req("GET", "/v1/kv/raw/k?raw");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("plain text");
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expectReadHeaders(res);
  });

  it("keys lists key names; separator truncates after the first separator past the prefix", async () => {
    await put("dir/x", "");
    await put("dir/sub/y", "");
    await put("dir/sub/z", "");
    expect((await s.json("GET", "/v1/kv/dir/?keys")).body).toEqual(["dir/sub/y", "dir/sub/z", "dir/x"]);
    expect((await s.json("GET", "/v1/kv/dir/?keys&separator=/")).body).toEqual(["dir/sub/", "dir/x"]);
    expect((await s.json("GET", "/v1/kv/nope/?keys")).status).toBe(404);
  });

  it("keys on the root of an empty namespace is an empty array, not 404", async () => {
    const { status, body } = await s.json("GET", "/v1/kv/?keys", undefined);
    expect(status).toBe(200);
    expect(Array.isArray(body)).toBe(true);
  });

  it("the * namespace lists every namespace on recursive reads and is refused for one key", async () => {
    expect((await s.json("PUT", "/v1/namespace", { Name: "team" })).status).toBe(200);
    await put("nsx/a", "1", "?ns=team");
    expect((await get("nsx/a")).status).toBe(404);
    expect((await get("nsx/a", "?ns=team")).status).toBe(200);
    expect((await get("nsx/", "?recurse&ns=*")).body.map((e) => e.Key)).toEqual(["nsx/a"]);
    expect((await get("nsx/a", "?ns=team")).body[0]).toMatchObject({ Key: "nsx/a", Namespace: "team" });
    await put("nsx/d", "1");
    expect((await get("nsx/d")).body[0]).not.toHaveProperty("Namespace");
    const res = await s.req("GET", "/v1/kv/nsx/a?ns=*");
    expect(res.status).toBe(400);
    expect((await put("nsx/b", "1", "?ns=*")).status).toBe(400);
  });

  it("keys with a percent-encoded slash address the decoded key", async () => {
    await put("enc%2Fkey", "v");
    expect((await get("enc/key")).status).toBe(200);
  });
});

describe("KV write", () => {
  it("stores the body exactly as supplied, binary included", async () => {
    const bytes = new Uint8Array([0, 255, 10, 13, 128, 1]);
    expect((await put("bin/k", bytes)).status).toBe(200);
    const res = await s.req("GET", "/v1/kv/bin/k?raw");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });

  it("an empty body stores an empty value, read back as null", async () => {
    await put("empty/k", "");
    expect((await get("empty/k")).body[0]!.Value).toBeNull();
  });

  it("Flags 18446744073709551615 round-trips exactly", async () => {
    await put("flags/max", "v", "?flags=18446744073709551615");
    const text = await (await s.req("GET", "/v1/kv/flags/max")).text();
    expect(text).toContain('"Flags":18446744073709551615');
  });

  it("cas=0 stores only when the key does not exist", async () => {
    expect(await (await put("cas/new", "1", "?cas=0")).json()).toBe(true);
    expect(await (await put("cas/new", "2", "?cas=0")).json()).toBe(false);
    expect((await get("cas/new")).body[0]!.Value).toBe(b64("1"));
  });

  it("a non-zero cas stores only when it equals the ModifyIndex", async () => {
    await put("cas/k", "1");
    const index = (await get("cas/k")).body[0]!.ModifyIndex;
    expect(await (await put("cas/k", "2", `?cas=${index + 1}`)).json()).toBe(false);
    expect(await (await put("cas/k", "2", `?cas=${index}`)).json()).toBe(true);
    expect(await (await put("cas/k", "3", `?cas=${index}`)).json()).toBe(false);
    expect((await get("cas/k")).body[0]!.Value).toBe(b64("2"));
  });

  it("an update keeps CreateIndex and moves ModifyIndex", async () => {
    await put("upd/k", "1");
    const first = (await get("upd/k")).body[0]!;
    await put("upd/k", "2");
    const second = (await get("upd/k")).body[0]!;
    expect(second.CreateIndex).toBe(first.CreateIndex);
    expect(second.ModifyIndex).toBeGreaterThan(first.ModifyIndex);
  });

  it("refuses PUT of an empty key with 400", async () => {
    const res = await s.req("PUT", "/v1/kv/", "x");
    expect(res.status).toBe(400);
    expect(await res.text()).toBe("Missing key name");
  });

  it("refuses a value over 512 kB with 413 and stores nothing", async () => {
    const res = await put("big/k", new Uint8Array(512 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(await res.text()).toMatch(/too large/);
    expect((await get("big/k")).status).toBe(404);
    expect((await put("big/ok", new Uint8Array(512 * 1024))).status).toBe(200);
  });

  it("reads a body sent in the same write as its headers", async () => {
    const { port } = new URL(s.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), "127.0.0.1", () =>
        socket.end("PUT /v1/kv/one/write HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\none write"),
      );
      let text = "";
      socket.on("data", (d: Buffer) => {
        text += d.toString();
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200[\s\S]*\r\n\r\ntrue$/);
    expect(await (await s.req("GET", "/v1/kv/one/write?raw")).text()).toBe("one write");
  });

  it("reads a body that arrives after its headers, in pieces, whole", async () => {
    const { port } = new URL(s.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "PUT",
          path: "/v1/kv/slow/body",
          headers: { "Content-Length": "10" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.flushHeaders();
      setTimeout(() => req.write("hello "), 50);
      setTimeout(() => req.end("body"), 100);
    });
    expect(status).toBe(200);
    expect(await (await s.req("GET", "/v1/kv/slow/body?raw")).text()).toBe("hello body");
  });

  it("stores nothing when the client goes away halfway through a body, and keeps serving", async () => {
    const { port } = new URL(s.url);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), "127.0.0.1", () => {
        socket.write("PUT /v1/kv/half/body HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf");
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on("close", () => resolve());
      socket.on("error", reject);
    });
    expect((await get("half/body")).status).toBe(404);
    expect((await put("half/after", "ok")).status).toBe(200);
  });

  it("refuses a chunked upload (no Content-Length) once it passes 512 kB", async () => {
    const { port } = new URL(s.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, method: "PUT", path: "/v1/kv/big/chunked" },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      for (let i = 0; i < 9; i++) req.write(Buffer.alloc(64 * 1024));
      req.end();
    });
    expect(status).toBe(413);
    expect((await get("big/chunked")).status).toBe(404);
  });

  it.each([
    ["non-numeric flags", "?flags=abc", /Invalid flags/],
    ["negative flags", "?flags=-1", /Invalid flags/],
    ["flags over 2^64-1", "?flags=18446744073709551616", /larger than 2\^64-1/],
    ["non-numeric cas", "?cas=x1", /Invalid cas/],
    ["an empty acquire session", "?acquire=", /Missing session/],
    [
      "conflicting cas and acquire",
      "?cas=0&acquire=00000000-0000-0000-0000-000000000000",
      /Conflicting flags/,
    ],
  ])("refuses %s with a one-line 400 and changes nothing", async (_name, query, reason) => {
    const res = await put("bad/k", "v", query);
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toMatch(reason);
    expect(text).not.toMatch(/\n/);
    expect((await get("bad/k")).status).toBe(404);
  });
});

describe("KV locks", () => {
  it("acquire locks with a valid session, increments LockIndex and sets Session", async () => {
    const id = await newSession();
    expect(await (await put("lock/a", "mine", `?acquire=${id}`)).json()).toBe(true);
    const e = (await get("lock/a")).body[0]!;
    expect(e).toMatchObject({ LockIndex: 1, Session: id, Value: b64("mine") });
  });

  it("re-acquire by the same session updates contents without incrementing LockIndex", async () => {
    const id = await newSession();
    await put("lock/b", "1", `?acquire=${id}`);
    expect(await (await put("lock/b", "2", `?acquire=${id}`)).json()).toBe(true);
    expect((await get("lock/b")).body[0]).toMatchObject({ LockIndex: 1, Session: id, Value: b64("2") });
  });

  it("another session cannot acquire a held lock", async () => {
    const a = await newSession();
    const b = await newSession();
    await put("lock/c", "a", `?acquire=${a}`);
    expect(await (await put("lock/c", "b", `?acquire=${b}`)).json()).toBe(false);
    expect((await get("lock/c")).body[0]).toMatchObject({ Session: a, Value: b64("a") });
  });

  it("release by the holder clears Session and keeps LockIndex; by another session it fails", async () => {
    const a = await newSession();
    const b = await newSession();
    await put("lock/d", "x", `?acquire=${a}`);
    expect(await (await put("lock/d", "y", `?release=${b}`)).json()).toBe(false);
    expect(await (await put("lock/d", "z", `?release=${a}`)).json()).toBe(true);
    const e = (await get("lock/d")).body[0]!;
    expect(e.Session).toBeUndefined();
    expect(e.LockIndex).toBe(1);
    expect(e.Value).toBe(b64("z"));
  });

  it("a PUT without acquire on a locked key proceeds normally and keeps the lock", async () => {
    const a = await newSession();
    await put("lock/e", "x", `?acquire=${a}`);
    expect(await (await put("lock/e", "plain")).json()).toBe(true);
    expect((await get("lock/e")).body[0]).toMatchObject({ Session: a, Value: b64("plain") });
  });

  it("acquire with an unknown session is Consul's 500 `invalid session` (Patroni's cue) and changes nothing", async () => {
    for (const id of ["11111111-2222-3333-4444-555555555555", "not-a-uuid"]) {
      const res = await put("lock/f", "x", `?acquire=${id}`);
      expect(res.status).toBe(500);
      expect(await res.text()).toBe(`invalid session "${id}"`);
    }
    expect((await get("lock/f")).status).toBe(404);
  });

  it("release with a session that is not UUID-shaped answers false, as Consul", async () => {
    const a = await newSession();
    await put("lock/g", "x", `?acquire=${a}`);
    expect(await (await put("lock/g", "y", "?release=not-a-uuid")).json()).toBe(false);
    expect((await get("lock/g")).body[0]).toMatchObject({ Session: a, Value: b64("x") });
  });
});

describe("KV delete", () => {
  it("deletes an exact key only", async () => {
    await put("del/a", "1");
    await put("del/ab", "2");
    expect(await (await s.req("DELETE", "/v1/kv/del/a")).json()).toBe(true);
    expect((await get("del/a")).status).toBe(404);
    expect((await get("del/ab")).status).toBe(200);
  });

  it("recurse deletes every key with the prefix", async () => {
    await put("deltree/a", "1");
    await put("deltree/b/c", "2");
    await put("deltreeX", "3");
    expect(await (await s.req("DELETE", "/v1/kv/deltree/?recurse")).json()).toBe(true);
    expect((await get("deltree/", "?recurse")).status).toBe(404);
    expect((await get("deltreeX")).status).toBe(200);
  });

  it("cas deletes only when it equals the ModifyIndex; cas=0 takes no action", async () => {
    await put("delcas/k", "1");
    const index = (await get("delcas/k")).body[0]!.ModifyIndex;
    expect(await (await s.req("DELETE", "/v1/kv/delcas/k?cas=0")).json()).toBe(false);
    expect(await (await s.req("DELETE", `/v1/kv/delcas/k?cas=${index + 5}`)).json()).toBe(false);
    expect((await get("delcas/k")).status).toBe(200);
    expect(await (await s.req("DELETE", `/v1/kv/delcas/k?cas=${index}`)).json()).toBe(true);
    expect((await get("delcas/k")).status).toBe(404);
  });

  it("refuses DELETE of an empty key without recurse, and recurse with cas", async () => {
    expect((await s.req("DELETE", "/v1/kv/")).status).toBe(400);
    const res = await s.req("DELETE", "/v1/kv/x?recurse&cas=1");
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/Conflicting flags/);
  });

  it("a read of a deleted key keeps a non-decreasing index", async () => {
    await put("idx/k", "1");
    const before = Number((await s.req("GET", "/v1/kv/idx/k")).headers.get("X-Service-Index"));
    await s.req("DELETE", "/v1/kv/idx/k");
    const after = Number((await s.req("GET", "/v1/kv/idx/k")).headers.get("X-Service-Index"));
    expect(after).toBeGreaterThan(before);
  });
});
