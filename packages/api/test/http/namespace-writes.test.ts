import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE, registerAgentNode, startServer, type TestServer } from "./harness.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await registerAgentNode(s);
  for (const name of ["live", "doomed"]) {
    expect((await s.json("PUT", "/v1/namespace", { Name: name })).status).toBe(200);
  }
  await s.json("PUT", "/v1/kv/k?ns=doomed", "before");
  // Without a leader to purge it, a deleted namespace stays marked for deletion.
  expect((await s.req("DELETE", "/v1/namespace/doomed")).status).toBe(200);
});
afterAll(() => s.close());

const GHOST = 'Namespace "ghost" does not exist';
const DOOMED = 'Namespace "doomed" is being deleted';

/** Every read that would show something a refused write stored, as one comparable value. */
async function everything(): Promise<unknown> {
  const reads = [
    "/v1/kv/?recurse&ns=*",
    "/v1/session/list?ns=*",
    "/v1/catalog/services?ns=*",
    "/v1/config/service-defaults?ns=*",
  ];
  return Promise.all(reads.map(async (path) => (await s.req("GET", path)).text()));
}

describe("writes into a namespace that does not exist or is being deleted", () => {
  it.each([
    ["a KV put", "PUT", "/v1/kv/app?ns=ghost", "v", GHOST],
    ["a KV put into a namespace being deleted", "PUT", "/v1/kv/app?ns=doomed", "v", DOOMED],
    ["a KV check-and-set", "PUT", "/v1/kv/app?ns=ghost&cas=0", "v", GHOST],
    ["a session", "PUT", "/v1/session/create?ns=ghost", "{}", GHOST],
    ["a session by body Namespace", "PUT", "/v1/session/create", '{"Namespace":"doomed"}', DOOMED],
    [
      "a catalog registration",
      "PUT",
      "/v1/catalog/register",
      JSON.stringify({ Node: NODE, Address: "127.0.0.1", Service: { Service: "web", Namespace: "ghost" } }),
      GHOST,
    ],
    [
      "a config entry",
      "PUT",
      "/v1/config?ns=doomed",
      JSON.stringify({ Kind: "service-defaults", Name: "web", Protocol: "http" }),
      DOOMED,
    ],
  ])(
    "refuses %s with Consul Enterprise's error and stores nothing",
    async (_name, method, path, body, reason) => {
      const before = await everything();
      const res = await s.req(method, path, body);
      expect(res.status).toBe(400);
      expect(await res.text()).toBe(reason);
      expect(await everything()).toEqual(before);
    },
  );

  it("a transaction reports the operation naming such a namespace, applying nothing", async () => {
    const { status, body } = await s.json("PUT", "/v1/txn", [
      { KV: { Verb: "set", Key: "t/fine", Value: null } },
      { KV: { Verb: "set", Key: "t/ghost", Value: null, Namespace: "ghost" } },
      { KV: { Verb: "get-tree", Key: "", Namespace: "ghost" } },
    ]);
    expect(status).toBe(409);
    expect(body).toEqual({ Results: null, Errors: [{ OpIndex: 1, What: GHOST }] });
    expect((await s.req("GET", "/v1/kv/t/fine")).status).toBe(404);
  });

  it("writes into a live namespace and deletes anywhere still work", async () => {
    expect((await s.req("PUT", "/v1/kv/app?ns=live", "v")).status).toBe(200);
    expect((await s.req("DELETE", "/v1/kv/k?ns=doomed")).status).toBe(200);
    expect((await s.req("DELETE", "/v1/kv/k?ns=ghost")).status).toBe(200);
  });
});
