import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Authorizer } from "../../src/authorizer.js";
import { b64, registerAgentNode, startServer, type TestServer } from "./harness.js";

/** Denies everything under secret/ except to the token "root"; read-only token "reader" may not write. */
const authorizer: Authorizer = {
  authorize(token, _ns, type, name, access) {
    if (token === "root") return "allow";
    if (type === "key" && name.startsWith("secret/")) return "deny";
    if (token === "reader" && access === "write") return "deny";
    return "allow";
  },
};

let s: TestServer;
beforeAll(async () => {
  s = await startServer({}, { authorizer });
  await registerAgentNode(s);
  await s.req("PUT", "/v1/kv/secret/a?token=root", "s");
  await s.req("PUT", "/v1/kv/open/a", "o");
});
afterAll(() => s.close());

describe("authorizer seam", () => {
  it("a refused read or write is 403 Permission denied and changes nothing", async () => {
    const read = await s.req("GET", "/v1/kv/secret/a");
    expect(read.status).toBe(403);
    expect(await read.text()).toBe("Permission denied");
    expect((await s.req("PUT", "/v1/kv/secret/a", "x")).status).toBe(403);
    expect((await s.req("PUT", "/v1/kv/open/b", "x", { "X-Consul-Token": "reader" })).status).toBe(403);
    expect(await (await s.req("GET", "/v1/kv/secret/a?raw&token=root")).text()).toBe("s");
  });

  it("recursive reads and key lists leave out what the token may not read", async () => {
    await s.req("PUT", "/v1/kv/secret/b?token=root", "s");
    const { body } = await s.json<{ Key: string }[]>("GET", "/v1/kv/?recurse");
    expect(body.map((e) => e.Key)).toEqual(["open/a"]);
    expect((await s.json("GET", "/v1/kv/?keys")).body).toEqual(["open/a"]);
    expect((await s.req("GET", "/v1/kv/secret/?recurse")).status).toBe(404);
  });

  it("a transaction with a refused operation is rolled back with a per-operation error", async () => {
    const { status, body } = await s.json<{ Errors: unknown[] }>("PUT", "/v1/txn", [
      { KV: { Verb: "set", Key: "open/t", Value: b64("1") } },
      { KV: { Verb: "get", Key: "secret/a" } },
    ]);
    expect(status).toBe(409);
    expect(body.Errors).toEqual([{ OpIndex: 1, What: "Permission denied" }]);
    expect((await s.req("GET", "/v1/kv/open/t")).status).toBe(404);
  });

  it("session create needs session write on the node", async () => {
    const res = await s.req("PUT", "/v1/session/create", "{}", { Authorization: "Bearer reader" });
    expect(res.status).toBe(403);
  });
});
