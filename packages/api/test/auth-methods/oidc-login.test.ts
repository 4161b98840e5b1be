import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browse, startProvider, type TestProvider } from "../../../../scripts/lib/oidc-provider.js";
import { type AclServer, ROOT, startAclServer } from "../acl/harness.js";

/** OIDC auth methods against a real OpenID Provider: auth-url, the provider's pages, callback. */

const hil = (name: string) => ["$", "{", name, "}"].join("");
const REDIRECT = "http://localhost:8550/oidc/callback";

let s: AclServer;
let op: TestProvider;
/** Added to the server's clock: moves it past a pending login's expiry. */
let skewMs = 0;

interface Token {
  SecretID: string;
  AuthMethod: string;
  Description: string;
  ServiceIdentities?: Array<{ ServiceName: string }>;
  Roles: Array<{ Name: string }> | null;
}

async function ok<T>(p: Promise<{ status: number; body: T; text: string }>): Promise<T> {
  const r = await p;
  expect(r.status, r.text).toBe(200);
  return r.body;
}

const authUrl = (body: Record<string, unknown>) =>
  s.call<{ AuthURL: string }>("POST", "/v1/acl/oidc/auth-url", undefined, body);
const callback = (body: Record<string, unknown>) =>
  s.call<Token>("POST", "/v1/acl/oidc/callback", undefined, body);

/** auth-url, then the provider's login and consent as `user`: the code and state it redirects with. */
async function signIn(user: string, method = "op", clientNonce = "cn-1") {
  const { AuthURL } = await ok(
    authUrl({ AuthMethod: method, RedirectURI: REDIRECT, ClientNonce: clientNonce, Meta: { via: "test" } }),
  );
  const { url } = await browse(AuthURL, user, REDIRECT);
  return { code: url.searchParams.get("code") ?? "", state: url.searchParams.get("state") ?? "", AuthURL };
}

beforeAll(async () => {
  op = await startProvider({
    redirectUris: [REDIRECT],
    accounts: {
      alice: { email: "alice@example.test", name: "Alice", groups: ["ops", "dev"], team: "blue" },
      bob: { email: "bob@example.test", name: "Bob", groups: ["dev"], team: "red" },
    },
  });
  s = await startAclServer({ now: () => Date.now() + skewMs });
  await ok(
    s.call("PUT", "/v1/acl/role", ROOT, { Name: "readers", ServiceIdentities: [{ ServiceName: "reader" }] }),
  );
  await ok(
    s.call("PUT", "/v1/acl/auth-method", ROOT, {
      Name: "op",
      Type: "oidc",
      MaxTokenTTL: "10m",
      Config: {
        OIDCDiscoveryURL: op.issuer,
        OIDCClientID: op.clientId,
        OIDCClientSecret: op.clientSecret,
        AllowedRedirectURIs: [REDIRECT],
        OIDCScopes: ["email", "profile"],
        BoundAudiences: [op.clientId],
        ClaimMappings: { sub: "user", email: "email", team: "team" },
        ListClaimMappings: { groups: "groups" },
      },
    }),
  );
  for (const r of [
    { Selector: '"ops" in list.groups', BindType: "service", BindName: `svc-${hil("value.user")}` },
    { Selector: 'value.team == "blue"', BindType: "role", BindName: "readers" },
  ]) {
    await ok(s.call("PUT", "/v1/acl/binding-rule", ROOT, { AuthMethod: "op", ...r }));
  }
}, 60_000);

afterAll(async () => {
  await s?.close();
  await op?.close();
});

describe("oidc auth-url", () => {
  it("points at the provider with state, nonce, PKCE S256 and the method's scopes", async () => {
    const { AuthURL } = await ok(authUrl({ AuthMethod: "op", RedirectURI: REDIRECT, ClientNonce: "x" }));
    const u = new URL(AuthURL);
    expect(u.origin).toBe(op.issuer);
    const q = u.searchParams;
    expect(q.get("client_id")).toBe(op.clientId);
    expect(q.get("redirect_uri")).toBe(REDIRECT);
    expect(q.get("response_type")).toBe("code");
    expect(q.get("scope")).toBe("openid email profile");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("state")).toMatch(/^[0-9a-f]{40}$/);
    expect(q.get("nonce")).toMatch(/^[0-9a-f]{40}$/);
  });

  it("accepts a loopback redirect on another port; refuses unlisted redirects and bad requests", async () => {
    await ok(authUrl({ AuthMethod: "op", RedirectURI: "http://localhost:9999/oidc/callback" }));
    const bad = await authUrl({ AuthMethod: "op", RedirectURI: "https://evil.test/oidc/callback" });
    expect([bad.status, bad.text]).toEqual([
      400,
      "unauthorized redirect_uri: https://evil.test/oidc/callback",
    ]);
    const missing = await authUrl({ AuthMethod: "op" });
    expect([missing.status, missing.text]).toEqual([400, "missing redirect_uri"]);
    const noMethod = await authUrl({ RedirectURI: REDIRECT });
    expect(noMethod.status).toBe(400);
    const unknown = await authUrl({ AuthMethod: "nope", RedirectURI: REDIRECT });
    expect(unknown.status).toBe(403);
  });
});

describe("oidc callback", () => {
  it("logs in through the provider: claims from the id_token and /userinfo, binding rules, Meta", async () => {
    const { code, state } = await signIn("alice");
    expect(code).not.toBe("");
    const t = await ok(callback({ AuthMethod: "op", State: state, Code: code, ClientNonce: "cn-1" }));
    expect(t.AuthMethod).toBe("op");
    expect(t.Description).toBe('token created via login: {"via":"test"}');
    expect(t.ServiceIdentities).toEqual([{ ServiceName: "svc-alice" }]);
    expect(t.Roles?.map((r) => r.Name)).toEqual(["readers"]);
    const self = await s.call<{ AccessorID: string }>("GET", "/v1/acl/token/self", t.SecretID);
    expect(self.status).toBe(200);
  });

  it("refuses a user no binding rule matches", async () => {
    const { code, state } = await signIn("bob");
    const r = await callback({ AuthMethod: "op", State: state, Code: code, ClientNonce: "cn-1" });
    expect([r.status, r.text]).toEqual([403, "Permission denied"]);
  });

  it("uses a state once, and only with its ClientNonce and method", async () => {
    const first = await signIn("alice");
    const wrongNonce = await callback({
      AuthMethod: "op",
      State: first.state,
      Code: first.code,
      ClientNonce: "other",
    });
    expect([wrongNonce.status, wrongNonce.text]).toEqual([
      403,
      "Permission denied: Provider login failed: invalid ClientNonce",
    ]);
    // The state was consumed by the refused attempt.
    const again = await callback({
      AuthMethod: "op",
      State: first.state,
      Code: first.code,
      ClientNonce: "cn-1",
    });
    expect([again.status, again.text]).toEqual([
      403,
      "Permission denied: Provider login failed: Expired or missing OAuth state.",
    ]);
    const unknown = await callback({
      AuthMethod: "op",
      State: "f".repeat(40),
      Code: "c",
      ClientNonce: "cn-1",
    });
    expect(unknown.status).toBe(403);
    const noCode = await callback({ AuthMethod: "op", State: "s", ClientNonce: "cn-1" });
    expect([noCode.status, noCode.text]).toEqual([
      403,
      "Permission denied: Provider login failed: OAuth code parameter not provided",
    ]);
  });

  it("forgets a pending login after ten minutes", async () => {
    const { code, state } = await signIn("alice");
    skewMs = 10 * 60_000 + 1000;
    try {
      const r = await callback({ AuthMethod: "op", State: state, Code: code, ClientNonce: "cn-1" });
      expect([r.status, r.text]).toEqual([
        403,
        "Permission denied: Provider login failed: Expired or missing OAuth state.",
      ]);
    } finally {
      skewMs = 0;
    }
  });

  it("refuses a code the provider does not recognise (it is exchanged with the state's verifier)", async () => {
    const { state } = await signIn("alice");
    const r = await callback({ AuthMethod: "op", State: state, Code: "forged-code", ClientNonce: "cn-1" });
    expect(r.status).toBe(403);
    expect(r.text).toMatch(
      /^Permission denied: Provider login failed: Error exchanging oidc code: invalid_grant/,
    );
  });

  it("bearer-token login is refused for oidc methods, and OIDC endpoints for jwt methods", async () => {
    const r = await s.call("POST", "/v1/acl/login", undefined, { AuthMethod: "op", BearerToken: "a.b.c" });
    expect(r.status).toBe(403);
    await ok(
      s.call("PUT", "/v1/acl/auth-method", ROOT, {
        Name: "plain-jwt",
        Type: "jwt",
        Config: { OIDCDiscoveryURL: op.issuer },
      }),
    );
    const u = await authUrl({ AuthMethod: "plain-jwt", RedirectURI: REDIRECT });
    expect([u.status, u.text]).toEqual([400, 'OIDC login is incompatible with type "jwt"']);
  });
});

describe("oidc method config", () => {
  const put = (Config: Record<string, unknown>) =>
    s.call("PUT", "/v1/acl/auth-method", ROOT, { Name: "cfg", Type: "oidc", MaxTokenTTL: "5m", Config });
  const base = {
    OIDCDiscoveryURL: "https://op.test",
    OIDCClientID: "id",
    OIDCClientSecret: "secret",
    AllowedRedirectURIs: [REDIRECT],
  };
  it("is validated as Consul's", async () => {
    await ok(put({ ...base, VerboseOIDCLogging: true, OIDCClientUsePKCE: false, OIDCScopes: ["email"] }));
    for (const [config, reason] of [
      [{ ...base, OIDCClientID: "" }, `'OIDCClientID' must be set for type "oidc"`],
      [{ ...base, AllowedRedirectURIs: [] }, `'AllowedRedirectURIs' must be set for type "oidc"`],
      [
        { ...base, JWKSURL: "https://x.test/jwks" },
        `'JWKSURL' must be set for type "oidc"`.replace("must", "must not"),
      ],
      [{ ...base, VerboseOIDCLogging: "yes" }, "Config.VerboseOIDCLogging must be a boolean"],
      [
        { ...base, ClaimMappings: { a: "x", b: "x" } },
        'ClaimMappings contains multiple mappings for key "x"',
      ],
    ] as const) {
      const r = await put(config);
      expect(r.status, JSON.stringify(config)).toBe(400);
      expect(r.text).toContain(reason);
    }
  });
});
