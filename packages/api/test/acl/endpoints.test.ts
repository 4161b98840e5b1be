import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AclServer, ROOT, startAclServer } from "./harness.js";

interface Token {
  AccessorID: string;
  SecretID?: string;
  Description: string;
  Policies: Array<{ ID: string; Name: string }> | null;
  Roles: Array<{ ID: string; Name: string }> | null;
  ExpirationTime?: string;
  Local: boolean;
  CreateTime: string;
  Hash: string;
  Namespace: string;
  CreateIndex: number;
  ModifyIndex: number;
}

let s: AclServer;
beforeAll(async () => {
  s = await startAclServer();
});
afterAll(() => s.close());

async function policy(name: string, rules = 'key_prefix "" { policy = "read" }') {
  const r = await s.call<{ ID: string }>("PUT", "/v1/acl/policy", ROOT, { Name: name, Rules: rules });
  expect(r.status).toBe(200);
  return r.body.ID;
}

describe("tokens", () => {
  it("create resolves policy links by name, read hides the secret from acl:read, self shows it", async () => {
    const id = await policy("readers");
    const created = await s.call<Token>("PUT", "/v1/acl/token", ROOT, {
      Description: "web",
      Policies: [{ Name: "readers" }],
    });
    expect(created.status).toBe(200);
    const t = created.body;
    expect(t.Policies).toEqual([{ ID: id, Name: "readers" }]);
    expect(t.SecretID).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.Roles).toBeNull();
    expect(t).not.toHaveProperty("Namespace"); // default namespace: as Consul OSS writes it
    expect(t.Hash).not.toBe("");
    const read = await s.call<Token>(
      "GET",
      `/v1/acl/token/${t.AccessorID}`,
      await s.tokenWith('acl = "read"'),
    );
    expect(read.body.SecretID).toBe("<hidden>");
    const self = await s.call<Token>("GET", "/v1/acl/token/self", t.SecretID);
    expect(self.body.SecretID).toBe(t.SecretID);
    // Rename the policy: the token's link follows by ID.
    expect((await s.call("PUT", `/v1/acl/policy/${id}`, ROOT, { Name: "renamed", Rules: "" })).status).toBe(
      200,
    );
    const again = await s.call<Token>("GET", `/v1/acl/token/${t.AccessorID}`, ROOT);
    expect(again.body.Policies).toEqual([{ ID: id, Name: "renamed" }]);
  });

  it("update keeps immutable fields; changing one is a 400 naming the field", async () => {
    const t = (await s.call<Token>("PUT", "/v1/acl/token", ROOT, { Description: "a" })).body;
    const ok = await s.call<Token>("PUT", `/v1/acl/token/${t.AccessorID}`, ROOT, { Description: "b" });
    expect(ok.status).toBe(200);
    expect(ok.body.SecretID).toBe(t.SecretID);
    expect(ok.body.ModifyIndex).toBeGreaterThan(t.ModifyIndex);
    expect(ok.body.CreateTime).toBe(t.CreateTime);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ SecretID: "6f0f8c4c-0000-0000-0000-000000000000" }, "SecretID"],
      [{ AccessorID: "6f0f8c4c-0000-0000-0000-000000000001" }, "AccessorID"],
      [{ Local: true }, "Local"],
      [{ AuthMethod: "kube" }, "AuthMethod"],
      [{ ExpirationTime: new Date(Date.now() + 3_600_000).toISOString() }, "ExpirationTime"],
    ];
    for (const [body, field] of cases) {
      const r = await s.call("PUT", `/v1/acl/token/${t.AccessorID}`, ROOT, body);
      expect(r.status, field).toBe(400);
      expect(r.text).toContain(field);
    }
    const after = await s.call<Token>("GET", `/v1/acl/token/${t.AccessorID}`, ROOT);
    expect(after.body.Description).toBe("b");
  });

  it("clone copies links with a new accessor and secret; delete answers true", async () => {
    const id = await policy("cloned");
    const t = (await s.call<Token>("PUT", "/v1/acl/token", ROOT, { Policies: [{ ID: id }] })).body;
    const c = (
      await s.call<Token>("PUT", `/v1/acl/token/${t.AccessorID}/clone`, ROOT, { Description: "copy" })
    ).body;
    expect(c.AccessorID).not.toBe(t.AccessorID);
    expect(c.SecretID).not.toBe(t.SecretID);
    expect(c.Policies).toEqual(t.Policies);
    expect(c.Description).toBe("copy");
    expect((await s.call("DELETE", `/v1/acl/token/${c.AccessorID}`, ROOT)).body).toBe(true);
    expect((await s.call("GET", `/v1/acl/token/${c.AccessorID}`, ROOT)).text).toBe("ACL not found");
    expect((await s.call("GET", "/v1/acl/token/self", c.SecretID)).text).toBe("ACL not found");
  });

  it("lists with policy and role filters, built-ins included", async () => {
    const id = await policy("listed");
    const t = (await s.call<Token>("PUT", "/v1/acl/token", ROOT, { Policies: [{ ID: id }] })).body;
    const all = await s.call<Token[]>("GET", "/v1/acl/tokens", ROOT);
    expect(all.status).toBe(200);
    const accessors = all.body.map((x) => x.AccessorID);
    expect(accessors).toContain("00000000-0000-0000-0000-000000000002");
    const filtered = await s.call<Token[]>("GET", `/v1/acl/tokens?policy=${id}`, ROOT);
    expect(filtered.body.map((x) => x.AccessorID)).toEqual([t.AccessorID]);
    const role = await s.call<{ ID: string }>("PUT", "/v1/acl/role", ROOT, {
      Name: "r-list",
      Policies: [{ ID: id }],
    });
    const withRole = (await s.call<Token>("PUT", "/v1/acl/token", ROOT, { Roles: [{ Name: "r-list" }] }))
      .body;
    const byRole = await s.call<Token[]>("GET", `/v1/acl/tokens?role=${role.body.ID}`, ROOT);
    expect(byRole.body.map((x) => x.AccessorID)).toEqual([withRole.AccessorID]);
  });

  it("expiration by TTL within 1m..24h; expired tokens are refused at once", async () => {
    const t = (await s.call<Token>("PUT", "/v1/acl/token", ROOT, { ExpirationTTL: "10m" })).body;
    const at = Date.parse(t.ExpirationTime ?? "");
    expect(at - Date.parse(t.CreateTime)).toBeGreaterThan(9 * 60_000);
    for (const ttl of ["30s", "25h"]) {
      const r = await s.call("PUT", "/v1/acl/token", ROOT, { ExpirationTTL: ttl });
      expect(r.status).toBe(400);
      expect(r.text).toContain("ExpirationTTL");
    }
    const past = await s.call("PUT", "/v1/acl/token", ROOT, {
      ExpirationTime: new Date(Date.now() - 1000).toISOString(),
    });
    expect(past.status).toBe(400);
    expect(past.text).toContain("ExpirationTime");
  });

  it("bad input is a one-line 400 naming the field and stores nothing", async () => {
    const before = (await s.call<Token[]>("GET", "/v1/acl/tokens", ROOT)).body.length;
    const cases: Array<[string, string, unknown, string]> = [
      ["PUT", "/v1/acl/token", { Policies: [{ ID: "00000000-0000-0000-0000-0000000000ff" }] }, "Policies"],
      ["PUT", "/v1/acl/token", { Policies: [{ Name: "missing" }] }, "Policies"],
      ["PUT", "/v1/acl/token", { ServiceIdentities: [{ ServiceName: "Bad_Name-" }] }, "ServiceName"],
      ["PUT", "/v1/acl/token", { ServiceIdentities: [{ ServiceName: "a".repeat(257) }] }, "ServiceName"],
      ["PUT", "/v1/acl/token", { ExpirationTTL: "1s" }, "ExpirationTTL"],
      ["PUT", "/v1/acl/token", { AccessorID: "00000000-0000-0000-0000-000000000099" }, "AccessorID"],
      ["PUT", "/v1/acl/token", { SecretID: "not-a-uuid" }, "SecretID"],
      [
        "PUT",
        "/v1/acl/token",
        { Local: true, ServiceIdentities: [{ ServiceName: "web", Datacenters: ["dc1"] }] },
        "ServiceIdentities",
      ],
      ["PUT", "/v1/acl/policy", { Name: "bad-rules", Rules: 'key "x" { policy = "rwx" }' }, "line 1, column"],
      ["PUT", "/v1/acl/policy", { Name: "bad name!", Rules: "" }, "Name"],
      ["PUT", "/v1/acl/role", { Name: "r-bad", Policies: [{ Name: "nope" }] }, "Policies"],
    ];
    for (const [method, path, body, reason] of cases) {
      const r = await s.call(method, path, ROOT, body);
      expect(r.status, reason).toBe(400);
      expect(r.text).toContain(reason);
      expect(r.text).not.toContain("\n");
    }
    expect((await s.call<Token[]>("GET", "/v1/acl/tokens", ROOT)).body.length).toBe(before);
    expect((await s.call("GET", "/v1/acl/policy/name/bad-rules", ROOT)).status).toBe(403);
    expect((await s.call("GET", "/v1/acl/role/name/r-bad", ROOT)).status).toBe(404);
    const withId = await s.call("PUT", "/v1/acl/policy", ROOT, {
      ID: "6f0f8c4c-0000-0000-0000-000000000009",
      Name: "x",
    });
    expect(withId.status).toBe(400);
    expect(withId.text).toContain("ID");
  });
});

describe("policies and roles", () => {
  it("read by ID and name, list without rules, the built-in cannot be deleted or changed", async () => {
    const id = await policy("by-name");
    expect((await s.call<{ ID: string }>("GET", "/v1/acl/policy/name/by-name", ROOT)).body.ID).toBe(id);
    const list = await s.call<Array<{ Name: string; Rules?: string }>>("GET", "/v1/acl/policies", ROOT);
    expect(list.body.find((p) => p.Name === "global-management")?.Rules).toBeUndefined();
    const gm = "00000000-0000-0000-0000-000000000001";
    const del = await s.call("DELETE", `/v1/acl/policy/${gm}`, ROOT);
    expect(del.status).toBe(400);
    const change = await s.call("PUT", `/v1/acl/policy/${gm}`, ROOT, {
      Name: "global-management",
      Rules: "",
    });
    expect(change.status).toBe(400);
    expect(change.text).toContain("Rules");
    expect((await s.call("DELETE", `/v1/acl/policy/${id}`, ROOT)).body).toBe(true);
  });

  it("roles carry policy links with names and grant through tokens", async () => {
    await policy("kv-writer", 'key_prefix "app/" { policy = "write" }');
    const role = await s.call<{ ID: string; Policies: unknown }>("PUT", "/v1/acl/role", ROOT, {
      Name: "app",
      Policies: [{ Name: "kv-writer" }],
    });
    expect(role.status).toBe(200);
    const t = (await s.call<Token>("PUT", "/v1/acl/token", ROOT, { Roles: [{ ID: role.body.ID }] })).body;
    expect((await s.call("PUT", "/v1/kv/app/x", t.SecretID, "1")).status).toBe(200);
    expect((await s.call("PUT", "/v1/kv/other", t.SecretID, "1")).status).toBe(403);
    expect((await s.call<{ ID: string }>("GET", "/v1/acl/role/name/app", ROOT)).body.ID).toBe(role.body.ID);
    expect((await s.call<unknown[]>("GET", "/v1/acl/roles", ROOT)).body.length).toBeGreaterThan(0);
  });
});

describe("legacy ID-based endpoints", () => {
  it("create, info, list, update, clone, destroy over the same store", async () => {
    const created = await s.call<{ ID: string }>("PUT", "/v1/acl/create", ROOT, {
      Name: "legacy",
      Type: "client",
      Rules: 'key "legacy/" { policy = "write" }',
    });
    expect(created.status).toBe(200);
    const id = created.body.ID;
    // Legacy rules match by prefix.
    expect((await s.call("PUT", "/v1/kv/legacy/deep/key", id, "1")).status).toBe(200);
    expect((await s.call("PUT", "/v1/kv/elsewhere", id, "1")).status).toBe(403);
    const info = await s.call<Array<{ ID: string; Name: string; Type: string }>>("GET", `/v1/acl/info/${id}`);
    expect(info.body).toEqual([expect.objectContaining({ ID: id, Name: "legacy", Type: "client" })]);
    expect((await s.call<unknown[]>("GET", "/v1/acl/list", ROOT)).body.length).toBeGreaterThan(0);
    expect((await s.call("GET", "/v1/acl/list", id)).status).toBe(403);
    expect(
      (await s.call("PUT", "/v1/acl/update", ROOT, { ID: id, Name: "renamed", Type: "management" })).status,
    ).toBe(200);
    expect((await s.call("GET", "/v1/acl/list", id)).status).toBe(200);
    const cloned = await s.call<{ ID: string }>("PUT", `/v1/acl/clone/${id}`, ROOT);
    expect(cloned.body.ID).not.toBe(id);
    expect((await s.call("PUT", `/v1/acl/destroy/${id}`, ROOT)).body).toBe(true);
    expect((await s.call("GET", `/v1/acl/info/${id}`)).body).toEqual([]);
    const bad = await s.call("PUT", "/v1/acl/create", ROOT, { Rules: "key {" });
    expect(bad.status).toBe(400);
  });

  it("replication status for a single datacenter", async () => {
    const r = await s.call("GET", "/v1/acl/replication", ROOT);
    expect(r.body).toMatchObject({
      Enabled: false,
      Running: false,
      SourceDatacenter: "dc1",
      ReplicatedIndex: 0,
      LastSuccess: "0001-01-01T00:00:00Z",
      LastError: "0001-01-01T00:00:00Z",
    });
  });
});

describe("bootstrap", () => {
  it("works once, then 403 with Consul's reason", async () => {
    const fresh = await startAclServer({ initialize: false });
    try {
      const first = await fresh.call<{ ID: string; SecretID: string; Policies: unknown }>(
        "PUT",
        "/v1/acl/bootstrap",
      );
      expect(first.status).toBe(200);
      expect(first.body.ID).toBe(first.body.SecretID);
      expect(first.body.Policies).toEqual([
        { ID: "00000000-0000-0000-0000-000000000001", Name: "global-management" },
      ]);
      const again = await fresh.call("PUT", "/v1/acl/bootstrap");
      expect(again.status).toBe(403);
      expect(again.text).toMatch(/^Permission denied: ACL bootstrap no longer allowed \(reset index: \d+\)$/);
      expect((await fresh.call("GET", "/v1/acl/tokens", first.body.SecretID)).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it("allows one more bootstrap once the reset index is written to acl-bootstrap-reset", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-acl-reset-"));
    const resetFile = join(dir, "acl-bootstrap-reset");
    const fresh = await startAclServer({ initialize: false, aclBootstrapResetFile: resetFile });
    try {
      const first = await fresh.call<{ SecretID: string }>("PUT", "/v1/acl/bootstrap");
      expect(first.status).toBe(200);
      const refused = await fresh.call("PUT", "/v1/acl/bootstrap");
      const resetIndex = Number(/reset index: (\d+)/.exec(refused.text)![1]);
      writeFileSync(resetFile, `${resetIndex + 7}\n`);
      const wrong = await fresh.call("PUT", "/v1/acl/bootstrap");
      expect(wrong.status).toBe(400);
      expect(wrong.text).toBe(
        `Invalid bootstrap reset index (specified ${resetIndex + 7}, reset index: ${resetIndex})`,
      );
      writeFileSync(resetFile, `${resetIndex}\n`);
      const second = await fresh.call<{ SecretID: string }>("PUT", "/v1/acl/bootstrap");
      expect(second.status).toBe(200);
      expect(second.body.SecretID).not.toBe(first.body.SecretID);
      expect(existsSync(resetFile)).toBe(false);
      // One reset, one bootstrap: the next attempt names the new reset index.
      const again = await fresh.call("PUT", "/v1/acl/bootstrap");
      expect(again.status).toBe(403);
      expect(Number(/reset index: (\d+)/.exec(again.text)![1])).toBeGreaterThan(resetIndex);
      expect((await fresh.call("GET", "/v1/acl/tokens", second.body.SecretID)).status).toBe(200);
    } finally {
      await fresh.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is refused when initial_management bootstrapped the cluster", async () => {
    expect((await s.call("PUT", "/v1/acl/bootstrap")).status).toBe(403);
  });
});

describe("ACLs off", () => {
  it("ACL endpoints answer 401 and tokens are ignored", async () => {
    const off = await startAclServer({ acl: false });
    try {
      for (const [m, p] of [
        ["PUT", "/v1/acl/bootstrap"],
        ["GET", "/v1/acl/tokens"],
        ["GET", "/v1/acl/token/self"],
        ["PUT", "/v1/acl/policy"],
        ["GET", "/v1/acl/replication"],
        ["GET", "/v1/acl/list"],
        ["DELETE", "/v1/acl/token/00000000-0000-0000-0000-000000000001"],
        ["POST", "/v1/acl/login"],
        ["PUT", "/v1/acl/auth-method"],
      ] as const) {
        // Before any body is read: an empty, null or malformed one gets the same answer.
        for (const body of m === "PUT" || m === "POST" ? [{}, "null", "{not json"] : [undefined]) {
          const r = await off.call(m, p, "whatever", body);
          expect(r.status, `${m} ${p} ${String(body)}`).toBe(401);
          expect(r.text).toBe("ACL support disabled");
        }
      }
      expect((await off.call("PUT", "/v1/kv/a", "not-a-token", "1")).status).toBe(200);
      expect((await off.call("GET", "/v1/kv/a", "not-a-token")).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});

describe("token errors", () => {
  it("an unknown secret is 403 ACL not found; anonymous is denied by default", async () => {
    const r = await s.call("GET", "/v1/kv/a", "00000000-dead-beef-0000-000000000000");
    expect(r.status).toBe(403);
    expect(r.text).toBe("ACL not found");
    const anon = await s.call("PUT", "/v1/kv/a", undefined, "1");
    expect(anon.status).toBe(403);
    expect(anon.text).toBe("Permission denied");
  });

  it("the default token stands in for requests without one", async () => {
    const withDefault = await startAclServer({ defaultToken: ROOT });
    try {
      expect((await withDefault.call("PUT", "/v1/kv/a", undefined, "1")).status).toBe(200);
    } finally {
      await withDefault.close();
    }
  });
});

describe("expiry", () => {
  it("a token is refused with ACL not found as soon as its ExpirationTime passes", async () => {
    let now = Date.now();
    const timed = await startAclServer({ now: () => now });
    try {
      const t = await timed.call<{ SecretID: string }>("PUT", "/v1/acl/token", ROOT, { ExpirationTTL: "1m" });
      expect((await timed.call("GET", "/v1/acl/token/self", t.body.SecretID)).status).toBe(200);
      now += 61_000;
      const after = await timed.call("GET", "/v1/kv/x", t.body.SecretID);
      expect(after.status).toBe(403);
      expect(after.text).toBe("ACL not found");
    } finally {
      await timed.close();
    }
  });
});

describe("blocking reads", () => {
  it("GET /acl/tokens waits for a change of the tokens table and reports its index", async () => {
    const first = await fetch(`${s.url}/v1/acl/tokens`, { headers: { "X-Consul-Token": ROOT } });
    const index = Number(first.headers.get("X-Consul-Index"));
    expect(index).toBeGreaterThan(0);
    const started = Date.now();
    const waiting = fetch(`${s.url}/v1/acl/tokens?index=${index}&wait=5s`, {
      headers: { "X-Consul-Token": ROOT },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await s.call("PUT", "/v1/acl/token", ROOT, { Description: "wakes" });
    const woken = await waiting;
    expect(Number(woken.headers.get("X-Service-Index"))).toBeGreaterThan(index);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await woken.text()).toContain("wakes");
  });
});
