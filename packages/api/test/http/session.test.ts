import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { b64, NODE, registerAgentNode, startServer, type TestServer } from "./harness.js";

interface Session {
  ID: string;
  Name: string;
  Node: string;
  NodeChecks: string[];
  ServiceChecks: { ID: string; Namespace: string }[] | null;
  Checks?: string[];
  LockDelay: number;
  Behavior: string;
  TTL: string;
  CreateIndex: number;
  ModifyIndex: number;
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ sessionTtlMinMs: 15_000 });
  await registerAgentNode(s);
  await registerAgentNode(s, "other-node");
});
afterAll(() => s.close());

const create = (body?: unknown) => s.json<{ ID: string }>("PUT", "/v1/session/create", body);
const info = async (id: string) => (await s.json<Session[]>("GET", `/v1/session/info/${id}`)).body;
const UNKNOWN = "11111111-2222-3333-4444-555555555555";

describe("session create", () => {
  it("applies Consul's defaults: the agent's node, serfHealth, 15s lock-delay, release, no TTL", async () => {
    const { status, body } = await create();
    expect(status).toBe(200);
    expect(body.ID).toMatch(/^[0-9a-f-]{36}$/);
    const [session] = await info(body.ID);
    expect(session).toMatchObject({
      ID: body.ID,
      Name: "",
      Node: NODE,
      NodeChecks: ["serfHealth"],
      ServiceChecks: null,
      LockDelay: 15_000_000_000,
      Behavior: "release",
      TTL: "",
    });
  });

  it("a JSON null body means all defaults", async () => {
    const { status, body } = await create("null");
    expect(status).toBe(200);
    expect((await info(body.ID))[0]).toMatchObject({ Node: NODE, Behavior: "release" });
  });

  it("matches body field names case-insensitively", async () => {
    const { status, body } = await create(
      '{"name":"lower","ttl":"30s","BEHAVIOR":"delete","lockdelay":"1s"}',
    );
    expect(status).toBe(200);
    expect((await info(body.ID))[0]).toMatchObject({
      Name: "lower",
      TTL: "30s",
      Behavior: "delete",
      LockDelay: 1e9,
    });
  });

  it("echoes TTL as sent", async () => {
    const { body } = await create({ TTL: "1m30s" });
    expect((await info(body.ID))[0]!.TTL).toBe("1m30s");
  });

  it.each([
    ["a duration string", "9.97s", 9_970_000_000],
    ["a small number (seconds)", 5, 5_000_000_000],
    ["a large number (nanoseconds)", 2_000_000_000, 2_000_000_000],
    ["milliseconds", "1500ms", 1_500_000_000],
  ])("accepts LockDelay as %s and returns nanoseconds", async (_name, lockDelay, ns) => {
    const { status, body } = await create({ LockDelay: lockDelay });
    expect(status).toBe(200);
    expect((await info(body.ID))[0]!.LockDelay).toBe(ns);
  });

  it("honours the configured session_ttl_min and the 86400s maximum with Consul's 500 (Patroni reads it)", async () => {
    expect((await create({ TTL: "15s" })).status).toBe(200);
    const low = await s.req("PUT", "/v1/session/create", JSON.stringify({ TTL: "10s" }));
    expect(low.status).toBe(500);
    expect(await low.text()).toBe("Invalid Session TTL '10000000000', must be between [15s=24h0m0s]");
    expect((await create({ TTL: "86401s" })).status).toBe(500);
    expect((await create({ TTL: "24h" })).status).toBe(200);
  });

  it.each([
    ["a malformed TTL", { TTL: "ten seconds" }, /Session TTL 'ten seconds' invalid/],
    ["a malformed LockDelay", { LockDelay: "soon" }, /LockDelay/],
    ["a negative LockDelay", { LockDelay: "-1s" }, /LockDelay/],
    ["an unknown Behavior", { Behavior: "explode" }, /Invalid Behavior setting 'explode'/],
    ["a non-string Name", { Name: 5 }, /Name/],
    ["malformed JSON", "{", /Request decode failed/],
    ["an unregistered Node", { Node: "ghost" }, /Missing node registration/],
    ["a missing check", { Checks: ["nope"] }, /Missing check 'nope' registration/],
  ])("refuses %s with a one-line 400", async (_name, body, reason) => {
    const before = (await s.json<Session[]>("GET", "/v1/session/list")).body.length;
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(String(res.body)).toMatch(reason);
    expect(String(res.body)).not.toMatch(/\n/);
    expect((await s.json<Session[]>("GET", "/v1/session/list")).body.length).toBe(before);
  });
});

describe("session reads", () => {
  it("info of an absent session is an empty array with headers", async () => {
    const { status, body, res } = await s.json("GET", `/v1/session/info/${UNKNOWN}`);
    expect(status).toBe(200);
    expect(body).toEqual([]);
    expect(res.headers.get("X-Service-Index")).not.toBeNull();
  });

  it("node lists the sessions of one node; list lists all", async () => {
    const { body: mine } = await create({ Node: "other-node", Name: "on-other" });
    const onNode = (await s.json<Session[]>("GET", "/v1/session/node/other-node")).body;
    expect(onNode.map((x) => x.ID)).toEqual([mine.ID]);
    const all = (await s.json<Session[]>("GET", "/v1/session/list")).body;
    expect(all.map((x) => x.ID)).toContain(mine.ID);
    expect((await s.json("GET", "/v1/session/node/nobody")).body).toEqual([]);
  });

  it("info of an ID that is not UUID-shaped is an empty result, as Consul's lookup finds nothing", async () => {
    expect(await s.json("GET", "/v1/session/info/xyz")).toMatchObject({ status: 200, body: [] });
  });
});

describe("session destroy", () => {
  it("destroys and returns true; destroying a missing session still returns 200 true", async () => {
    const { body } = await create();
    const res = await s.json("PUT", `/v1/session/destroy/${body.ID}`);
    expect(res).toMatchObject({ status: 200, body: true });
    expect(await info(body.ID)).toEqual([]);
    expect(await s.json("PUT", `/v1/session/destroy/${body.ID}`)).toMatchObject({ status: 200, body: true });
  });

  it("a malformed UUID is a 400", async () => {
    const res = await s.req("PUT", "/v1/session/destroy/not-a-uuid");
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/must be a UUID/);
  });

  it("release behavior: destroying releases held locks and starts the lock-delay", async () => {
    const { body } = await create({ LockDelay: "10s" });
    await s.req("PUT", `/v1/kv/sess/lock?acquire=${body.ID}`, "v");
    await s.req("PUT", `/v1/session/destroy/${body.ID}`);
    const entry = (await s.json<{ Session?: string; Value: string }[]>("GET", "/v1/kv/sess/lock")).body[0]!;
    expect(entry.Session).toBeUndefined();
    expect(entry.Value).toBe(b64("v"));
    const { body: next } = await create();
    expect(await (await s.req("PUT", `/v1/kv/sess/lock?acquire=${next.ID}`, "w")).json()).toBe(false);
  });

  it("delete behavior: destroying deletes held keys", async () => {
    const { body } = await create({ Behavior: "delete" });
    await s.req("PUT", `/v1/kv/sess/doomed?acquire=${body.ID}`, "v");
    await s.req("PUT", `/v1/session/destroy/${body.ID}`);
    expect((await s.req("GET", "/v1/kv/sess/doomed")).status).toBe(404);
  });
});

describe("session renew", () => {
  it("returns the session in an array", async () => {
    const { body } = await create({ TTL: "20s" });
    const res = await s.json<Session[]>("PUT", `/v1/session/renew/${body.ID}`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ ID: body.ID, TTL: "20s" });
  });

  it("an unknown session is a 404 with Consul's message", async () => {
    const res = await s.req("PUT", `/v1/session/renew/${UNKNOWN}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(`Session id '${UNKNOWN}' not found`);
  });

  it("an ID that is not UUID-shaped is not found either (python-consul's suite renews '1' * 36)", async () => {
    for (const id of ["bad", "1".repeat(36)]) {
      const res = await s.req("PUT", `/v1/session/renew/${id}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toBe(`Session id '${id}' not found`);
    }
  });
});
