import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { b64, registerAgentNode, startServer, type TestServer } from "./harness.js";

interface TxnBody {
  Results: Record<string, Record<string, unknown>>[] | null;
  Errors: { OpIndex: number; What: string }[] | null;
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await registerAgentNode(s);
});
afterAll(() => s.close());

const txn = (ops: unknown, query = "") => s.json<TxnBody>("PUT", `/v1/txn${query}`, ops);
const kvGet = async (key: string) => s.json<{ Value: string; ModifyIndex: number }[]>("GET", `/v1/kv/${key}`);

describe("transactions", () => {
  it("applies KV writes atomically and answers 200 with Results; Value is null for write verbs", async () => {
    const { status, body, res } = await txn([
      { KV: { Verb: "set", Key: "t/a", Value: b64("1") } },
      { KV: { Verb: "set", Key: "t/b", Value: b64("2"), Flags: 7 } },
    ]);
    expect(status).toBe(200);
    expect(body.Errors).toBeNull();
    expect(body.Results).toHaveLength(2);
    expect(body.Results![1]!.KV).toMatchObject({ Key: "t/b", Value: null, Flags: 7 });
    expect(res.headers.get("X-Service-KnownLeader")).toBeNull();
    expect(res.headers.get("X-Consul-LastContact")).toBeNull();
    expect((await kvGet("t/a")).body[0]!.Value).toBe(b64("1"));
  });

  it("rolls back everything and answers 409 with Errors when any operation fails", async () => {
    const { status, body } = await txn([
      { KV: { Verb: "set", Key: "t/rolled", Value: b64("x") } },
      { KV: { Verb: "cas", Key: "t/a", Value: b64("y"), Index: 999_999 } },
    ]);
    expect(status).toBe(409);
    expect(body.Results).toBeNull();
    expect(body.Errors).toEqual([{ OpIndex: 1, What: expect.stringMatching(/index is stale/) }]);
    expect((await kvGet("t/rolled")).status).toBe(404);
  });

  it("get and get-tree return values; delete verbs have no result entries", async () => {
    await txn([{ KV: { Verb: "set", Key: "t/tree/x", Value: b64("x") } }]);
    const { status, body } = await txn([
      { KV: { Verb: "get", Key: "t/a" } },
      { KV: { Verb: "get-tree", Key: "t/tree/" } },
      { KV: { Verb: "set", Key: "t/gone", Value: null } },
      { KV: { Verb: "delete", Key: "t/gone" } },
    ]);
    expect(status).toBe(200);
    expect(body.Results!.map((r) => r.KV!.Key)).toEqual(["t/a", "t/tree/x", "t/gone"]);
    expect(body.Results![0]!.KV!.Value).toBe(b64("1"));
  });

  it("check verbs guard a transaction", async () => {
    const index = (await kvGet("t/a")).body[0]!.ModifyIndex;
    expect((await txn([{ KV: { Verb: "check-index", Key: "t/a", Index: index } }])).status).toBe(200);
    expect((await txn([{ KV: { Verb: "check-index", Key: "t/a", Index: index + 1 } }])).status).toBe(409);
    expect((await txn([{ KV: { Verb: "check-not-exists", Key: "t/a" } }])).status).toBe(409);
    expect((await txn([{ KV: { Verb: "check-not-exists", Key: "t/none" } }])).status).toBe(200);
    expect((await txn([{ KV: { Verb: "get", Key: "t/none" } }])).status).toBe(409);
  });

  it("a read-only transaction carries the known-leader and last-contact headers and honours stale/consistent", async () => {
    for (const query of ["", "?stale", "?consistent"]) {
      const { status, res } = await txn([{ KV: { Verb: "get", Key: "t/a" } }], query);
      expect(status).toBe(200);
      expect(res.headers.get("X-Service-KnownLeader")).toBe("true");
      expect(res.headers.get("X-Consul-KnownLeader")).toBe("true");
      expect(res.headers.get("X-Service-LastContact")).toBe("0");
    }
    expect((await txn([{ KV: { Verb: "get", Key: "t/a" } }], "?stale&consistent")).status).toBe(400);
  });

  it("node, service and check operations", async () => {
    const { status, body } = await txn([
      { Node: { Verb: "set", Node: { Node: "txn-node", Address: "10.1.1.1" } } },
      { Service: { Verb: "set", Node: "txn-node", Service: { ID: "web1", Service: "web", Port: 8080 } } },
      {
        Check: {
          Verb: "set",
          Check: {
            Node: "txn-node",
            CheckID: "web-check",
            Name: "web",
            Status: "passing",
            ServiceID: "web1",
          },
        },
      },
    ]);
    expect(status).toBe(200);
    expect(body.Results!.map((r) => Object.keys(r)[0])).toEqual(["Node", "Service", "Check"]);
    const read = await txn([
      { Node: { Verb: "get", Node: { Node: "txn-node" } } },
      { Service: { Verb: "get", Node: "txn-node", Service: { ID: "web1" } } },
      { Check: { Verb: "get", Check: { Node: "txn-node", CheckID: "web-check" } } },
    ]);
    expect(read.status).toBe(200);
    expect(read.body.Results![0]!.Node).toMatchObject({
      Node: "txn-node",
      Address: "10.1.1.1",
      Datacenter: "dc1",
    });
    expect((await txn([{ Node: { Verb: "delete", Node: { Node: "txn-node" } } }])).status).toBe(200);
    expect((await txn([{ Node: { Verb: "get", Node: { Node: "txn-node" } } }])).status).toBe(409);
  });

  it("matches operation field names case-insensitively", async () => {
    const { status } = await txn(`[{"kv":{"verb":"set","key":"t/case","value":"${b64("c")}"}}]`);
    expect(status).toBe(200);
    expect((await kvGet("t/case")).body[0]!.Value).toBe(b64("c"));
  });

  it("keeps uint64 Flags exact", async () => {
    const res = await s.req(
      "PUT",
      "/v1/txn",
      '[{"KV":{"Verb":"set","Key":"t/flags","Value":null,"Flags":18446744073709551615}}]',
    );
    expect(await res.text()).toContain('"Flags":18446744073709551615');
    expect(await (await s.req("GET", "/v1/kv/t/flags")).text()).toContain('"Flags":18446744073709551615');
  });

  it.each([
    [
      "65 operations",
      Array.from({ length: 65 }, (_, i) => ({ KV: { Verb: "set", Key: `t/many/${i}`, Value: null } })),
      413,
      /too many operations/,
    ],
    [
      "a value over 512 kB",
      [{ KV: { Verb: "set", Key: "t/bad3", Value: b64("x".repeat(600 * 1024)) } }],
      413,
      /too large/,
    ],
    ["malformed JSON", "[{", 400, /Failed to parse body/],
  ])("refuses %s with a one-line %i and changes nothing", async (_name, ops, code, reason) => {
    const before = (await s.req("GET", "/v1/kv/t/?keys")).headers.get("X-Service-Index");
    const res = await s.req("PUT", "/v1/txn", typeof ops === "string" ? ops : JSON.stringify(ops));
    expect(res.status).toBe(code);
    const text = await res.text();
    expect(text).toMatch(reason);
    expect(text).not.toMatch(/\n/);
    expect((await s.req("GET", "/v1/kv/t/?keys")).headers.get("X-Service-Index")).toBe(before);
  });

  it("reports every operation's problem as a 409 with Errors by OpIndex, and applies nothing", async () => {
    const before = (await s.req("GET", "/v1/kv/t/?keys")).headers.get("X-Service-Index");
    const { status, body } = await s.json("PUT", "/v1/txn", [
      { KV: { Verb: "set", Key: "t/problem", Value: null } },
      { KV: { Verb: "lock", Key: "t/l", Value: null } },
      { KV: { Verb: "frobnicate", Key: "t/x" } },
      { KV: { Verb: "get" } },
      { KV: { Verb: "cas", Key: "t/x", Value: null } },
      { Node: { Verb: "set", Node: {} } },
    ]);
    expect(status).toBe(409);
    expect(body).toEqual({
      Results: null,
      Errors: [
        { OpIndex: 1, What: "missing session" },
        { OpIndex: 2, What: 'unknown KV verb "frobnicate"' },
        { OpIndex: 3, What: "Must provide key" },
        { OpIndex: 4, What: 'missing Index for verb "cas"' },
        { OpIndex: 5, What: "Must provide node" },
      ],
    });
    expect((await s.req("GET", "/v1/kv/t/?keys")).headers.get("X-Service-Index")).toBe(before);
    expect((await s.req("GET", "/v1/kv/t/problem")).status).toBe(404);
  });

  it("a check-not-exists failure and a missing key for get are 409s naming the operation", async () => {
    await s.json("PUT", "/v1/txn", [{ KV: { Verb: "set", Key: "t/exists", Value: null } }]);
    const { status, body } = await s.json("PUT", "/v1/txn", [
      { KV: { Verb: "check-not-exists", Key: "t/exists" } },
      { KV: { Verb: "get", Key: "t/absent" } },
    ]);
    expect(status).toBe(409);
    expect(body).toEqual({
      Results: null,
      Errors: [
        { OpIndex: 0, What: 'key "t/exists" exists' },
        { OpIndex: 1, What: 'key "t/absent" doesn\'t exist' },
      ],
    });
  });

  it("a body over the transaction size limit is a 413", async () => {
    const res = await s.req("PUT", "/v1/txn", `[${" ".repeat(512 * 1024)}]`);
    expect(res.status).toBe(413);
  });
});
