import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AclServer, ROOT, startAclServer } from "../acl/harness.js";
import { fakeJwt, rsaSigner, selfSignedCert } from "./fixtures.js";

/** A HIL `${name}` reference (kept out of string literals, which read like JS templates). */
const hil = (name: string) => ["$", "{", name, "}"].join("");

let s: AclServer;
const cert = selfSignedCert();
const signer = rsaSigner();
const k8sConfig = {
  Host: "https://127.0.0.1:6443",
  CACert: cert.certPem,
  ServiceAccountJWT: fakeJwt("reviewer"),
};
const jwtConfig = {
  JWTValidationPubKeys: [signer.publicPem],
  BoundAudiences: ["cairn"],
  ClaimMappings: { sub: "user", role: "role" },
  ListClaimMappings: { groups: "groups" },
};

beforeAll(async () => {
  s = await startAclServer();
});
afterAll(() => s.close());

const put = (path: string, body: unknown, token = ROOT) =>
  s.call<Record<string, unknown>>("PUT", path, token, body);
const get = (path: string, token = ROOT) => s.call<Record<string, unknown>>("GET", path, token);

async function expect400(path: string, body: unknown, reason: RegExp | string) {
  const r = await put(path, body);
  expect(r.status, r.text).toBe(400);
  expect(r.text).toMatch(reason);
  expect(r.text).not.toContain("\n");
}

describe("auth methods", () => {
  it("create, read, list (no Config), update and delete", async () => {
    const created = await put("/v1/acl/auth-method", {
      Name: "k8s",
      Type: "kubernetes",
      DisplayName: "Cluster",
      Description: "pods",
      MaxTokenTTL: "10m",
      TokenLocality: "global",
      Config: k8sConfig,
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      Name: "k8s",
      Type: "kubernetes",
      DisplayName: "Cluster",
      Description: "pods",
      MaxTokenTTL: "10m0s",
      TokenLocality: "global",
      Config: k8sConfig,
    });
    // In the default namespace, as Consul's open-source edition writes it.
    expect(created.body).not.toHaveProperty("Namespace");
    const read = await get("/v1/acl/auth-method/k8s");
    expect(read.body).toEqual(created.body);
    const list = await s.call<Array<Record<string, unknown>>>("GET", "/v1/acl/auth-methods", ROOT);
    const entry = list.body.find((m) => m.Name === "k8s");
    expect(entry).toMatchObject({
      Name: "k8s",
      Type: "kubernetes",
      MaxTokenTTL: "10m0s",
      TokenLocality: "global",
    });
    expect(entry).not.toHaveProperty("Config");
    // Update by path: Type filled in, Name may be absent, Config required.
    const updated = await put("/v1/acl/auth-method/k8s", { Description: "changed", Config: k8sConfig });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({
      Type: "kubernetes",
      Description: "changed",
      CreateIndex: created.body.CreateIndex,
    });
    expect(Number(updated.body.ModifyIndex)).toBeGreaterThan(Number(created.body.ModifyIndex));
    expect((await s.call("DELETE", "/v1/acl/auth-method/k8s", ROOT)).body).toBe(true);
    expect((await get("/v1/acl/auth-method/k8s")).status).toBe(404);
    expect((await s.call("DELETE", "/v1/acl/auth-method/k8s", ROOT)).body).toBe(true);
  });

  it("refuses bad input with one-line reasons and stores nothing", async () => {
    const before = (await s.call<unknown[]>("GET", "/v1/acl/auth-methods", ROOT)).body.length;
    await expect400("/v1/acl/auth-method", { Type: "jwt", Config: jwtConfig }, "no Name is set");
    await expect400("/v1/acl/auth-method", { Name: "a b", Type: "jwt", Config: jwtConfig }, "invalid Name");
    await expect400("/v1/acl/auth-method", { Name: "x", Type: "ldap", Config: {} }, /Type should be one of/);
    await expect400("/v1/acl/auth-method", { Name: "x", Type: "jwt" }, "Config is required");
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", MaxTokenTTL: "30s", Config: jwtConfig },
      "MaxTokenTTL 30s cannot be less than 1m0s",
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", MaxTokenTTL: "25h", Config: jwtConfig },
      "MaxTokenTTL 25h0m0s cannot be more than 24h0m0s",
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", TokenLocality: "dc", Config: jwtConfig },
      /TokenLocality should be one of/,
    );
    // kubernetes config
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "kubernetes", Config: { ...k8sConfig, Host: "" } },
      "Config.Host is required",
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "kubernetes", Config: { ...k8sConfig, CACert: "nope" } },
      /error parsing kubernetes ca cert/,
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "kubernetes", Config: { ...k8sConfig, ServiceAccountJWT: "abc" } },
      /ServiceAccountJWT is not a valid JWT/,
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "kubernetes", Config: { ...k8sConfig, Extra: 1 } },
      /invalid keys: Extra/,
    );
    // jwt config
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", Config: { BoundAudiences: ["a"] } },
      /exactly one of 'JWTValidationPubKeys', 'JWKSURL', or 'OIDCDiscoveryURL'/,
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", Config: { ...jwtConfig, JWKSURL: "http://127.0.0.1:1/k" } },
      /exactly one of/,
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", Config: { JWTValidationPubKeys: ["garbage"] } },
      /error parsing public key JWTValidationPubKeys\[0\]/,
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", Config: { ...jwtConfig, OIDCClientID: "c" } },
      `'OIDCClientID' must not be set for type "jwt"`,
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", Config: { ...jwtConfig, JWTSupportedAlgs: ["HS256"] } },
      "Invalid supported algorithm: HS256",
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", Config: { ...jwtConfig, ClaimMappings: { a: "u", b: "u" } } },
      /multiple mappings for key "u"/,
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", Config: { ...jwtConfig, ExpirationLeeway: "soon" } },
      /invalid duration/,
    );
    // oidc config
    const oidc = {
      OIDCDiscoveryURL: "https://idp.example",
      OIDCClientID: "c",
      OIDCClientSecret: "s",
      AllowedRedirectURIs: ["http://localhost:8550/oidc/callback"],
    };
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "oidc", Config: oidc },
      'MaxTokenTTL must be set for type "oidc"',
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "oidc", MaxTokenTTL: "5m", Config: { ...oidc, OIDCClientSecret: "" } },
      `'OIDCClientSecret' must be set for type "oidc"`,
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "oidc", MaxTokenTTL: "5m", Config: { ...oidc, BoundIssuer: "i" } },
      `'BoundIssuer' must not be set for type "oidc"`,
    );
    // NamespaceRules
    await expect400(
      "/v1/acl/auth-method",
      {
        Name: "x",
        Type: "jwt",
        Config: jwtConfig,
        NamespaceRules: [{ Selector: "value.nope == a", BindNamespace: "n" }],
      },
      /NamespaceRules\[0\].Selector is invalid: unknown field "value.nope"/,
    );
    await expect400(
      "/v1/acl/auth-method",
      { Name: "x", Type: "jwt", Config: jwtConfig, NamespaceRules: [{ Selector: "" }] },
      "NamespaceRules[0].BindNamespace is required",
    );
    await expect400(
      "/v1/acl/auth-method",
      {
        Name: "x",
        Type: "jwt",
        Config: jwtConfig,
        NamespaceRules: [{ BindNamespace: `${hil("value.nope")}` }],
      },
      /unknown variable accessed: value.nope/,
    );
    expect((await s.call<unknown[]>("GET", "/v1/acl/auth-methods", ROOT)).body).toHaveLength(before);
    expect((await get("/v1/acl/auth-method/x")).status).toBe(404);
  });

  it("Name and Type are immutable; a valid oidc config is accepted", async () => {
    expect((await put("/v1/acl/auth-method", { Name: "j", Type: "jwt", Config: jwtConfig })).status).toBe(
      200,
    );
    await expect400(
      "/v1/acl/auth-method/j",
      { Name: "other", Config: jwtConfig },
      "AuthMethod Name in URL and payload do not match",
    );
    await expect400(
      "/v1/acl/auth-method/j",
      { Type: "kubernetes", Config: k8sConfig },
      "the Type field of an Auth Method is immutable",
    );
    await expect400("/v1/acl/auth-method/j", {}, "Config is required");
    const oidc = await put("/v1/acl/auth-method", {
      Name: "sso",
      Type: "oidc",
      MaxTokenTTL: "5m",
      Config: {
        OIDCDiscoveryURL: "https://idp.example",
        OIDCClientID: "c",
        OIDCClientSecret: "s",
        AllowedRedirectURIs: ["http://localhost:8550/oidc/callback"],
        OIDCScopes: ["email"],
      },
    });
    expect(oidc.status, oidc.text).toBe(200);
  });

  it("the list is a blocking query woken by a change", async () => {
    const marker = await put("/v1/acl/auth-method", { Name: "marker", Type: "jwt", Config: jwtConfig });
    const index = Number(marker.body.ModifyIndex);
    const started = Date.now();
    const held = s.call<Array<{ Name: string }>>("GET", `/v1/acl/auth-methods?index=${index}&wait=5s`, ROOT);
    setTimeout(() => void put("/v1/acl/auth-method", { Name: "woken", Type: "jwt", Config: jwtConfig }), 150);
    const res = await held;
    expect(res.body.some((m) => m.Name === "woken")).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("needs acl:write to write and acl:read to read", async () => {
    const reader = await s.tokenWith('acl = "read"');
    expect(
      (await put("/v1/acl/auth-method", { Name: "r", Type: "jwt", Config: jwtConfig }, reader)).status,
    ).toBe(403);
    expect((await s.call("GET", "/v1/acl/auth-methods", reader)).status).toBe(200);
    const nobody = await s.tokenWith('key_prefix "" { policy = "read" }');
    expect((await s.call("GET", "/v1/acl/auth-methods", nobody)).status).toBe(403);
    expect((await s.call("GET", "/v1/acl/binding-rules", nobody)).status).toBe(403);
  });
});

describe("with ACLs off", () => {
  it("every auth-method, binding-rule and login endpoint answers 401 ACL support disabled", async () => {
    const off = await startAclServer({ acl: false, initialize: false });
    try {
      for (const [method, path] of [
        ["GET", "/v1/acl/auth-methods"],
        ["PUT", "/v1/acl/auth-method"],
        ["GET", "/v1/acl/binding-rules"],
        ["POST", "/v1/acl/login"],
        ["POST", "/v1/acl/logout"],
      ] as const) {
        const r = await off.call(method, path, undefined, method === "GET" ? undefined : {});
        expect([r.status, r.text], `${method} ${path}`).toEqual([401, "ACL support disabled"]);
      }
    } finally {
      await off.close();
    }
  });
});

describe("binding rules", () => {
  it("create, read, list by method, update and delete with Consul's validation", async () => {
    expect((await put("/v1/acl/auth-method", { Name: "br", Type: "jwt", Config: jwtConfig })).status).toBe(
      200,
    );
    expect(
      (await put("/v1/acl/auth-method", { Name: "br2", Type: "kubernetes", Config: k8sConfig })).status,
    ).toBe(200);
    const created = await put("/v1/acl/binding-rule", {
      Description: "users",
      AuthMethod: "br",
      Selector: 'value.role == "admin" and "ops" in list.groups',
      BindType: "service",
      BindName: `svc-${hil("value.user")}`,
    });
    expect(created.status, created.text).toBe(200);
    const id = String(created.body.ID);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.body).toMatchObject({ AuthMethod: "br", BindType: "service" });
    expect(created.body).not.toHaveProperty("Namespace");
    expect((await get(`/v1/acl/binding-rule/${id}`)).body).toEqual(created.body);
    const other = await put("/v1/acl/binding-rule", {
      AuthMethod: "br2",
      BindType: "role",
      BindName: `${hil("serviceaccount.name")}`,
    });
    expect(other.status, other.text).toBe(200);
    const byMethod = await s.call<Array<{ ID: string }>>("GET", "/v1/acl/binding-rules?authmethod=br", ROOT);
    expect(byMethod.body.map((r) => r.ID)).toEqual([id]);
    const updated = await put(`/v1/acl/binding-rule/${id}`, {
      BindType: "node",
      BindName: `n-${hil("value.user")}`,
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ AuthMethod: "br", BindType: "node", Selector: "" });
    await expect400(
      `/v1/acl/binding-rule/${id}`,
      { AuthMethod: "br2", BindType: "node", BindName: "n" },
      "the AuthMethod field of an Binding Rule is immutable",
    );
    await expect400(
      `/v1/acl/binding-rule/${id}`,
      { ID: other.body.ID, BindType: "node", BindName: "n" },
      "BindingRule ID in URL and payload do not match",
    );
    expect((await s.call("DELETE", `/v1/acl/binding-rule/${id}`, ROOT)).body).toBe(true);
    expect((await get(`/v1/acl/binding-rule/${id}`)).status).toBe(404);
    // Deleting the method takes its rules with it.
    expect((await s.call("DELETE", "/v1/acl/auth-method/br2", ROOT)).body).toBe(true);
    expect((await get(`/v1/acl/binding-rule/${other.body.ID}`)).status).toBe(404);
  });

  it("refuses bad rules with one-line reasons and stores nothing", async () => {
    expect((await put("/v1/acl/auth-method", { Name: "bad", Type: "jwt", Config: jwtConfig })).status).toBe(
      200,
    );
    const before = (await s.call<unknown[]>("GET", "/v1/acl/binding-rules", ROOT)).body.length;
    const rule = { AuthMethod: "bad", BindType: "service", BindName: "web" };
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, AuthMethod: "" },
      "Invalid Binding Rule: no AuthMethod is set",
    );
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, AuthMethod: "missing" },
      'cannot find auth method with name "missing"',
    );
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, BindType: "" },
      "Invalid Binding Rule: no BindType is set",
    );
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, BindName: "" },
      "Invalid Binding Rule: no BindName is set",
    );
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, BindType: "ns" },
      'Invalid Binding Rule: unknown BindType "ns"',
    );
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, Selector: "serviceaccount.name == x" },
      /Selector is invalid: unknown field/,
    );
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, Selector: "list.groups == x" },
      /Selector is invalid: == is not supported on the list field/,
    );
    await expect400("/v1/acl/binding-rule", { ...rule, Selector: "value.user ==" }, /Selector is invalid/);
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, BindName: `${hil("value.missing")}` },
      "Invalid Binding Rule: invalid BindName: unknown variable accessed: value.missing",
    );
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, BindName: "Web_UPPER" },
      "Invalid Binding Rule: invalid BindName",
    );
    await expect400(
      "/v1/acl/binding-rule",
      { ...rule, BindName: "${value.user" },
      /invalid BindName: unterminated/,
    );
    expect((await s.call<unknown[]>("GET", "/v1/acl/binding-rules", ROOT)).body).toHaveLength(before);
  });
});
