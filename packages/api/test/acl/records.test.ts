import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AclServer, ROOT, startAclServer } from "./harness.js";

interface Token {
  AccessorID: string;
  SecretID: string;
  Description: string;
  Legacy?: boolean;
  Type?: string;
}

interface LegacyAcl {
  ID: string;
  Name: string;
  Type: string;
  Rules: string;
}

const INITIAL_ACCESSOR = "00000000-0000-0000-0000-00000000000a";

let s: AclServer;
/** acl:read only. */
let reader: string;
beforeAll(async () => {
  s = await startAclServer();
  reader = await s.tokenWith('acl = "read"');
});
afterAll(() => s.close());

async function ok<T>(p: Promise<{ status: number; body: T; text: string }>): Promise<T> {
  const r = await p;
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describe("token secrets", () => {
  it("a token read shows the SecretID to an acl:write caller and hides it from an acl:read one", async () => {
    const t = await ok(s.call<Token>("PUT", "/v1/acl/token", ROOT, { Description: "shown" }));
    expect((await ok(s.call<Token>("GET", `/v1/acl/token/${t.AccessorID}`, ROOT))).SecretID).toBe(t.SecretID);
    expect((await ok(s.call<Token>("GET", `/v1/acl/token/${t.AccessorID}`, reader))).SecretID).toBe(
      "<hidden>",
    );
  });

  it("token list entries carry the SecretID the same way, and Type is never part of the new API", async () => {
    const t = await ok(s.call<Token>("PUT", "/v1/acl/token", ROOT, { Description: "listed" }));
    const byRoot = await ok(s.call<Token[]>("GET", "/v1/acl/tokens", ROOT));
    expect(byRoot.find((x) => x.AccessorID === t.AccessorID)).toMatchObject({
      SecretID: t.SecretID,
      Legacy: false,
    });
    const byReader = await s.call<Token[]>("GET", "/v1/acl/tokens", reader);
    expect(byReader.body.every((x) => x.SecretID === "<hidden>")).toBe(true);
    expect(byReader.text).not.toContain(ROOT);
    expect(byRoot.every((x) => x.Type === undefined)).toBe(true);
  });
});

describe("legacy type of management tokens", () => {
  it("the initial management token is a `management` ACL on /acl/info and /acl/list; anonymous is not listed", async () => {
    expect(await ok(s.call<LegacyAcl[]>("GET", `/v1/acl/info/${ROOT}`))).toEqual([
      expect.objectContaining({ ID: ROOT, Name: "Initial Management Token", Type: "management" }),
    ]);
    const listed = await ok(s.call<LegacyAcl[]>("GET", "/v1/acl/list", ROOT));
    expect(listed).toContainEqual(expect.objectContaining({ ID: ROOT, Type: "management" }));
    expect(listed.map((a) => a.ID)).not.toContain("anonymous");
  });

  it("/acl/clone of the initial management token makes a working management token", async () => {
    const { ID } = await ok(s.call<{ ID: string }>("PUT", `/v1/acl/clone/${ROOT}`, ROOT));
    expect(ID).not.toBe(ROOT);
    expect(await ok(s.call<LegacyAcl[]>("GET", `/v1/acl/info/${ID}`))).toEqual([
      expect.objectContaining({ ID, Type: "management" }),
    ]);
    expect((await s.call("GET", "/v1/acl/list", ID)).status).toBe(200);
  });

  it("the bootstrap token is a `management` ACL too", async () => {
    const fresh = await startAclServer({ initialize: false });
    try {
      const boot = await ok(fresh.call<{ SecretID: string }>("PUT", "/v1/acl/bootstrap"));
      const listed = await ok(fresh.call<LegacyAcl[]>("GET", "/v1/acl/list", boot.SecretID));
      expect(listed).toEqual([
        expect.objectContaining({
          ID: boot.SecretID,
          Name: "Bootstrap Token (Global Management)",
          Type: "management",
        }),
      ]);
    } finally {
      await fresh.close();
    }
  });
});

describe("legacy rules translation", () => {
  it("POST /acl/rules/translate answers legacy rules in today's syntax, as text", async () => {
    const res = await s.call("POST", "/v1/acl/rules/translate", reader, 'key "foo/" { policy = "read" }');
    expect(res.status).toBe(200);
    expect(res.text).toBe('key_prefix "foo/" { policy = "read" }');
  });

  it("GET /acl/rules/translate/:accessor translates an ID-based token's rules", async () => {
    const { ID } = await ok(
      s.call<{ ID: string }>("PUT", "/v1/acl/create", ROOT, {
        Name: "old",
        Type: "client",
        Rules: 'service "" { policy = "write" }\nnode "web" { policy = "read" }',
      }),
    );
    const accessor = (await ok(s.call<Token[]>("GET", "/v1/acl/tokens", ROOT))).find(
      (t) => t.SecretID === ID,
    )?.AccessorID;
    const res = await s.call("GET", `/v1/acl/rules/translate/${accessor}`, reader);
    expect(res.status).toBe(200);
    expect(res.text).toBe('service_prefix "" { policy = "write" }\nnode_prefix "web" { policy = "read" }');
  });

  it.each([
    ["rules that do not parse", "POST", "/v1/acl/rules/translate", () => ROOT, "key {", 400, /^Rules: /],
    ["no acl:read", "POST", "/v1/acl/rules/translate", () => "", 'key "a" {}', 403, /Permission denied/],
    [
      "a token without rules",
      "GET",
      `/v1/acl/rules/translate/${INITIAL_ACCESSOR}`,
      () => ROOT,
      undefined,
      400,
      /^The specified token does not have any rules set$/,
    ],
    [
      "an unknown token",
      "GET",
      "/v1/acl/rules/translate/5bd9d0b6-0a6c-4bb4-8d9c-7a5bbd1cf8d4",
      () => ROOT,
      undefined,
      403,
      /^ACL not found$/,
    ],
    ["no token ID", "GET", "/v1/acl/rules/translate/", () => ROOT, undefined, 400, /^Missing token ID$/],
  ])("refuses %s", async (_name, method, path, token, body, status, reason) => {
    const res = await s.call(method, path, token() || undefined, body);
    expect(res.status).toBe(status);
    expect(res.text).toMatch(reason);
  });

  it("answers 401 with ACLs off", async () => {
    const off = await startAclServer({ acl: false });
    try {
      expect((await off.call("POST", "/v1/acl/rules/translate", undefined, 'key "a" {}')).status).toBe(401);
    } finally {
      await off.close();
    }
  });
});

describe("missing records", () => {
  it("a missing role is a 404, by ID or by name; a missing policy keeps Consul's 403", async () => {
    const byId = await s.call("GET", "/v1/acl/role/5bd9d0b6-0a6c-4bb4-8d9c-7a5bbd1cf8d4", ROOT);
    expect(byId.status).toBe(404);
    expect((await s.call("GET", "/v1/acl/role/name/nobody", ROOT)).status).toBe(404);
    const policy = await s.call("GET", "/v1/acl/policy/5bd9d0b6-0a6c-4bb4-8d9c-7a5bbd1cf8d4", ROOT);
    expect(policy).toMatchObject({ status: 403, text: "ACL not found" });
  });
});

describe("ACL records in a namespace that does not exist", () => {
  it("are refused with Consul Enterprise's error and nothing is stored", async () => {
    const before = (await ok(s.call<Token[]>("GET", "/v1/acl/tokens?ns=*", ROOT))).length;
    const token = await s.call("PUT", "/v1/acl/token?ns=ghost", ROOT, { Description: "lost" });
    expect(token).toMatchObject({ status: 400, text: 'Namespace "ghost" does not exist' });
    const policy = await s.call("PUT", "/v1/acl/policy", ROOT, { Name: "lost", Namespace: "ghost" });
    expect(policy).toMatchObject({ status: 400, text: 'Namespace "ghost" does not exist' });
    expect((await ok(s.call<Token[]>("GET", "/v1/acl/tokens?ns=*", ROOT))).length).toBe(before);
  });
});
