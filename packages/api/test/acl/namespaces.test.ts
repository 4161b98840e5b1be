import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AclServer, ROOT, startAclServer } from "./harness.js";

const logged: string[] = [];
let s: AclServer;
let tokenA = "";

const EVERYTHING = `
key_prefix "" { policy = "write" }
service_prefix "" { policy = "write" }
session_prefix "" { policy = "write" }
node_prefix "" { policy = "read" }
`;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged.push(String(chunk));
      done();
    },
  });
  s = await startAclServer({ logger: pino({ level: "debug" }, sink) });
  for (const ns of ["a", "b"]) {
    expect((await s.call("PUT", "/v1/namespace", ROOT, { Name: ns })).status).toBe(200);
  }
  tokenA = await s.tokenWith(EVERYTHING, "a");
  await s.call("PUT", "/v1/catalog/register", ROOT, {
    Node: "n1",
    Address: "10.0.0.1",
    Checks: [{ CheckID: "serfHealth", Name: "Serf", Status: "passing" }],
  });
  await s.call("PUT", "/v1/kv/shared?ns=b", ROOT, "b-secret");
  await s.call("PUT", "/v1/catalog/register?ns=b", ROOT, {
    Node: "n1",
    Address: "10.0.0.1",
    Service: { Service: "b-svc", Namespace: "b" },
  });
});
afterAll(() => s.close());

describe("namespace isolation", () => {
  it("a token of namespace a works in a (inherited when no ns is named)", async () => {
    expect((await s.call("PUT", "/v1/kv/shared", tokenA, "a-value")).status).toBe(200);
    expect((await s.call("GET", "/v1/kv/shared?raw&ns=a", ROOT)).text).toBe("a-value");
    expect((await s.call("GET", "/v1/kv/shared?raw", tokenA)).text).toBe("a-value");
    const session = await s.call<{ ID: string }>("PUT", "/v1/session/create", tokenA, {
      Node: "n1",
      Checks: [],
    });
    expect(session.text).toMatch(/"ID"/);
    expect(session.status).toBe(200);
    await s.call("PUT", "/v1/catalog/register?ns=a", ROOT, {
      Node: "n1",
      Address: "10.0.0.1",
      Service: { Service: "a-svc", Namespace: "a" },
    });
    const services = await s.call<Record<string, unknown>>("GET", "/v1/catalog/services", tokenA);
    expect(Object.keys(services.body)).toEqual(["a-svc"]);
  });

  it("never reads or writes namespace b's keys, services or sessions", async () => {
    expect((await s.call("GET", "/v1/kv/shared?ns=b", tokenA)).status).toBe(403);
    expect((await s.call("PUT", "/v1/kv/shared?ns=b", tokenA, "x")).status).toBe(403);
    expect((await s.call("DELETE", "/v1/kv/shared?ns=b", tokenA)).status).toBe(403);
    expect((await s.call("GET", "/v1/kv/shared?raw&ns=b", ROOT)).text).toBe("b-secret");
    const services = await s.call<Record<string, unknown>>("GET", "/v1/catalog/services?ns=b", tokenA);
    expect(Object.keys(services.body)).toEqual([]);
    expect((await s.call<unknown[]>("GET", "/v1/health/service/b-svc?ns=b", tokenA)).body).toEqual([]);
    const reg = await s.call("PUT", "/v1/catalog/register?ns=b", tokenA, {
      Node: "n1",
      Address: "10.0.0.1",
      Service: { Service: "sneaky", Namespace: "b" },
    });
    expect(reg.status).toBe(403);
    expect((await s.call("PUT", "/v1/session/create?ns=b", tokenA, { Node: "n1" })).status).toBe(403);
    await s.call("PUT", "/v1/session/create?ns=b", ROOT, { Node: "n1" });
    expect((await s.call<unknown[]>("GET", "/v1/session/list?ns=b", tokenA)).body).toEqual([]);
    const wild = await s.call<Array<{ Key: string; Namespace?: string }>>(
      "GET",
      "/v1/kv/?recurse&ns=*",
      tokenA,
    );
    expect(wild.text).not.toContain("b-secret");
  });

  it("lists only the namespaces the token may see", async () => {
    const seen = await s.call<Array<{ Name: string }>>("GET", "/v1/namespaces", tokenA);
    expect(seen.body.map((n) => n.Name)).toEqual(["a"]);
    expect((await s.call("GET", "/v1/namespace/b", tokenA)).status).toBe(403);
    const all = await s.call<Array<{ Name: string; ACLs?: unknown }>>("GET", "/v1/namespaces", ROOT);
    expect(all.body.map((n) => n.Name)).toEqual(["default", "a", "b"]);
  });
});

describe("namespaces", () => {
  it("defaults by name are stored by ID and apply to the namespace's tokens (direct rules first)", async () => {
    const p = await s.call<{ ID: string }>("PUT", "/v1/acl/policy", ROOT, {
      Name: "ns-default-write",
      Rules: 'key_prefix "" { policy = "write" }',
    });
    const made = await s.call<{ ACLs: { PolicyDefaults: unknown } }>("PUT", "/v1/namespace", ROOT, {
      Name: "withdefaults",
      Meta: { team: "x" },
      ACLs: { PolicyDefaults: [{ Name: "ns-default-write" }] },
    });
    expect(made.status).toBe(200);
    expect(made.body.ACLs.PolicyDefaults).toEqual([{ ID: p.body.ID, Name: "ns-default-write" }]);
    const plain = await s.call<{ SecretID: string }>("PUT", "/v1/acl/token?ns=withdefaults", ROOT, {});
    expect((await s.call("PUT", "/v1/kv/k", plain.body.SecretID, "1")).status).toBe(200);
    const reader = await s.tokenWith('key_prefix "" { policy = "read" }', "withdefaults");
    expect((await s.call("PUT", "/v1/kv/k", reader, "1")).status).toBe(403);
    expect((await s.call("GET", "/v1/kv/k", reader)).status).toBe(200);
  });

  it("update needs matching names; default cannot be deleted; delete marks, then reads carry DeletedAt", async () => {
    const mismatch = await s.call("PUT", "/v1/namespace/a", ROOT, { Name: "other" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain("Name");
    expect((await s.call("PUT", "/v1/namespace", ROOT, { Name: "not_a_label!" })).status).toBe(400);
    expect((await s.call("DELETE", "/v1/namespace/default", ROOT)).status).toBe(400);
    await s.call("PUT", "/v1/namespace", ROOT, { Name: "gone" });
    expect((await s.call("DELETE", "/v1/namespace/gone", ROOT)).status).toBe(200);
    const read = await s.call<{ DeletedAt?: string }>("GET", "/v1/namespace/gone", ROOT);
    expect(read.body.DeletedAt).toMatch(/^\d{4}-/);
  });
});

describe("secrets", () => {
  it("never appear in logs, nor in list output to callers without acl:write", async () => {
    await s.call("GET", `/v1/kv/shared?token=${tokenA}`);
    const reader = await s.tokenWith('acl = "read"');
    const lists = [
      await s.call("GET", "/v1/acl/tokens?ns=*", reader),
      await s.call("GET", "/v1/acl/tokens", reader),
      await s.call("GET", "/v1/acl/list", ROOT),
    ];
    expect(lists[0]?.text).not.toContain(tokenA);
    expect(lists[1]?.text).not.toContain(ROOT);
    const all = logged.join("");
    expect(all).toContain("/v1/kv/shared");
    expect(all).not.toContain(tokenA);
    expect(all).not.toContain(ROOT);
  });
});
