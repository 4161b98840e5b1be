import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AclServer, ROOT, startAclServer } from "../acl/harness.js";
import { rsaSigner, startHttp, type TestServer } from "./fixtures.js";

/** A HIL `${name}` reference (kept out of string literals, which read like JS templates). */
const hil = (name: string) => ["$", "{", name, "}"].join("");

let clock = Date.now();
const NOW = clock;
const nowS = Math.floor(NOW / 1000);
const signer = rsaSigner();
const stranger = rsaSigner();
let s: AclServer;
let jwks: TestServer;
/** What /rotating serves: changed by the key-rotation test. */
let rotating: { keys: unknown[] } = { keys: [] };

interface Token {
  AccessorID: string;
  SecretID: string;
  Description: string;
  AuthMethod: string;
  Local: boolean;
  Namespace: string;
  ExpirationTime?: string;
  ServiceIdentities?: Array<{ ServiceName: string }>;
  NodeIdentities?: Array<{ NodeName: string; Datacenter: string }>;
  Roles: Array<{ ID: string; Name: string }> | null;
  Policies: Array<{ ID: string; Name: string }> | null;
}

const claims = (over: Record<string, unknown> = {}) => ({
  iss: "https://issuer.test",
  aud: ["cairn"],
  sub: "alice",
  groups: ["ops", "dev"],
  meta: { team: "blue" },
  iat: nowS - 10,
  exp: nowS + 300,
  ...over,
});

const config = {
  BoundAudiences: ["cairn"],
  BoundIssuer: "https://issuer.test",
  ClaimMappings: { sub: "user", "/meta/team": "team" },
  ListClaimMappings: { groups: "groups" },
};

async function ok<T>(p: Promise<{ status: number; body: T; text: string }>): Promise<T> {
  const r = await p;
  expect(r.status, r.text).toBe(200);
  return r.body;
}

const login = (method: string, bearer: string, meta?: Record<string, string>, ns?: string) =>
  s.call<Token>("POST", `/v1/acl/login${ns ? `?ns=${ns}` : ""}`, undefined, {
    AuthMethod: method,
    BearerToken: bearer,
    ...(meta ? { Meta: meta } : {}),
  });

beforeAll(async () => {
  s = await startAclServer({ now: () => clock });
  const keys = await signer.jwks("k1");
  jwks = await startHttp((req) => {
    if (req.path === "/jwks") return { status: 200, body: keys };
    if (req.path === "/rotating") return { status: 200, body: rotating };
    if (req.path === "/.well-known/openid-configuration") {
      return { status: 200, body: { issuer: "https://issuer.test", jwks_uri: `${jwks.url}/jwks` } };
    }
    return { status: 404, body: {} };
  });
  await ok(
    s.call("PUT", "/v1/acl/policy", ROOT, {
      Name: "p-blue",
      Rules: 'key_prefix "blue/" { policy = "write" }',
    }),
  );
  await ok(
    s.call("PUT", "/v1/acl/role", ROOT, { Name: "readers", ServiceIdentities: [{ ServiceName: "reader" }] }),
  );
  await ok(
    s.call("PUT", "/v1/acl/auth-method", ROOT, {
      Name: "pem",
      Type: "jwt",
      MaxTokenTTL: "10m",
      Config: { ...config, JWTValidationPubKeys: [stranger.publicPem, signer.publicPem] },
    }),
  );
  await ok(
    s.call("PUT", "/v1/acl/auth-method", ROOT, {
      Name: "jwks",
      Type: "jwt",
      TokenLocality: "global",
      Config: { ...config, JWKSURL: `${jwks.url}/jwks` },
    }),
  );
  for (const method of ["pem", "jwks"]) {
    const rules = [
      { Selector: '"ops" in list.groups', BindType: "service", BindName: `svc-${hil("value.user")}` },
      { Selector: 'value.team == "blue"', BindType: "role", BindName: "readers" },
      { BindType: "policy", BindName: `p-${hil("value.team")}` },
      { Selector: "value.user == nobody", BindType: "node", BindName: "never" },
    ];
    for (const r of rules)
      await ok(s.call("PUT", "/v1/acl/binding-rule", ROOT, { AuthMethod: method, ...r }));
  }
});
afterAll(async () => {
  await s.close();
  await jwks.close();
});

describe("jwt login", () => {
  it("with PEM keys: binds matching rules, templated names, ExpirationTime from MaxTokenTTL, login Meta", async () => {
    const t = await ok(login("pem", await signer.sign(claims()), { pod: "web-1" }));
    expect(t.AuthMethod).toBe("pem");
    expect(t.Local).toBe(true);
    expect(t).not.toHaveProperty("Namespace"); // the default namespace, written as Consul OSS writes it
    expect(t.Description).toBe('token created via login: {"pod":"web-1"}');
    expect(t.ServiceIdentities).toEqual([{ ServiceName: "svc-alice" }]);
    expect(t.NodeIdentities).toBeUndefined();
    expect(t.Roles?.map((r) => r.Name)).toEqual(["readers"]);
    expect(t.Policies?.map((p) => p.Name)).toEqual(["p-blue"]);
    expect(t.ExpirationTime).toBe(new Date(NOW + 10 * 60_000).toISOString());
    const self = await s.call<Token>("GET", "/v1/acl/token/self", t.SecretID);
    expect(self.status, self.text).toBe(200);
    // The token can do what its policy grants.
    expect((await s.call("PUT", "/v1/kv/blue/x", t.SecretID, "v")).status).toBe(200);
    expect((await s.call("PUT", "/v1/kv/red/x", t.SecretID, "v")).status).toBe(403);
  });

  it("refuses a bad signature, a wrong audience or issuer, an expired token, no time claims", async () => {
    const refused = async (bearer: string, reason: RegExp) => {
      const r = await login("pem", bearer);
      expect(r.status, r.text).toBe(403);
      expect(r.text).toMatch(reason);
    };
    await refused(
      await rsaSigner().sign(claims()),
      /no known key successfully validated the token signature/,
    );
    await refused(
      await signer.sign(claims({ aud: ["elsewhere"] })),
      /aud claim does not match any bound audience/,
    );
    await refused(await signer.sign(claims({ iss: "https://evil" })), /invalid issuer/);
    await refused(await signer.sign(claims({ iat: nowS - 7200, exp: nowS - 3600 })), /token is expired/);
    await refused(await signer.sign(claims({ nbf: nowS + 3600 })), /not valid yet/);
    await refused(await signer.sign(claims({ iat: undefined, exp: undefined })), /no issue time/);
    await refused("not-a-jwt", /error parsing token/);
    const empty = await login("pem", "");
    expect(empty.status).toBe(403);
    expect(empty.text).toContain("missing jwt");
  });

  it("is refused with Permission denied when no binding rule grants anything", async () => {
    const r = await login("pem", await signer.sign(claims({ groups: ["dev"], meta: { team: "red" } })));
    expect(r.status).toBe(403);
    expect(r.text).toBe("Permission denied");
  });

  it("with a JWKS served over HTTP: valid, bad signature; global locality", async () => {
    const t = await ok(login("jwks", await signer.sign(claims(), "k1")));
    expect(t.ServiceIdentities).toEqual([{ ServiceName: "svc-alice" }]);
    expect(t.Local).toBe(false);
    expect(t.ExpirationTime).toBeUndefined();
    expect(jwks.requests.some((r) => r.path === "/jwks")).toBe(true);
    const forged = await login("jwks", await stranger.sign(claims(), "k1"));
    expect(forged.status).toBe(403);
    expect(forged.text).toMatch(/error verifying token/);
    const wrongAud = await login("jwks", await signer.sign(claims({ aud: "x" }), "k1"));
    expect(wrongAud.status).toBe(403);
  });

  it("with OIDC discovery: keys from the document's jwks_uri, issuer from the document", async () => {
    await ok(
      s.call("PUT", "/v1/acl/auth-method", ROOT, {
        Name: "disco",
        Type: "jwt",
        Config: { ...config, BoundIssuer: undefined, OIDCDiscoveryURL: jwks.url },
      }),
    );
    await ok(
      s.call("PUT", "/v1/acl/binding-rule", ROOT, {
        AuthMethod: "disco",
        BindType: "service",
        BindName: "web",
      }),
    );
    const t = await ok(login("disco", await signer.sign(claims(), "k1")));
    expect(t.ServiceIdentities).toEqual([{ ServiceName: "web" }]);
    const other = await login("disco", await signer.sign(claims({ iss: "https://other" }), "k1"));
    expect(other.status).toBe(403);
    expect(other.text).toMatch(/issuer does not match the discovery document/);
  });

  it("an unknown method is ACL not found; a bad computed bind name is refused", async () => {
    const r = await login("nope", "x");
    expect(r.status).toBe(403);
    expect(r.text).toBe('ACL not found: auth method "nope" not found');
    const bad = await login("pem", await signer.sign(claims({ sub: "Alice Smith" })));
    expect(bad.status).toBe(403);
    expect(bad.text).toMatch(/computed "service" bind name for bind target is invalid: "svc-Alice Smith"/);
  });

  it("NamespaceRules place the token by the first matching selector, with a templated BindNamespace", async () => {
    await ok(s.call("PUT", "/v1/namespace", ROOT, { Name: "team-blue" }));
    await ok(
      s.call("PUT", "/v1/acl/auth-method", ROOT, {
        Name: "spaced",
        Type: "jwt",
        Config: { ...config, JWTValidationPubKeys: [signer.publicPem] },
        NamespaceRules: [
          { Selector: 'value.team == "blue"', BindNamespace: `team-${hil("value.team")}` },
          { Selector: 'value.team == "green"', BindNamespace: "team-green" },
        ],
      }),
    );
    await ok(
      s.call("PUT", "/v1/acl/binding-rule", ROOT, {
        AuthMethod: "spaced",
        BindType: "service",
        BindName: "web",
      }),
    );
    const blue = await ok(login("spaced", await signer.sign(claims())));
    expect(blue.Namespace).toBe("team-blue");
    expect(blue).toMatchObject({ AuthMethod: "spaced", AuthMethodNamespace: "default" });
    // Tokens are found by the namespace of their auth method, which defaults to the request's.
    const listed = async (query: string) =>
      (await ok(s.call<Token[]>("GET", `/v1/acl/tokens?${query}`, ROOT))).map((t) => t.AccessorID);
    expect(await listed("ns=team-blue&authmethod=spaced&authmethod-ns=default")).toEqual([blue.AccessorID]);
    expect(await listed("ns=team-blue&authmethod=spaced")).toEqual([]);
    expect(await listed("ns=team-blue&authmethod=spaced&authmethod-ns=team-blue")).toEqual([]);
    const red = await ok(login("spaced", await signer.sign(claims({ meta: { team: "red" } }))));
    expect(red).not.toHaveProperty("Namespace"); // the default namespace
    const green = await login("spaced", await signer.sign(claims({ meta: { team: "green" } })));
    expect(green.status).toBe(403);
    expect(green.text).toMatch(/namespace "team-green" does not exist/);
  });

  it("logout deletes a login token; other tokens are refused", async () => {
    const t = await ok(login("pem", await signer.sign(claims())));
    expect((await s.call("POST", "/v1/acl/logout", t.SecretID)).body).toBe(true);
    expect((await s.call("GET", "/v1/acl/token/self", t.SecretID)).status).toBe(403);
    const again = await s.call("POST", "/v1/acl/logout", t.SecretID);
    expect([again.status, again.text]).toEqual([403, "ACL not found"]);
    const root = await s.call("POST", "/v1/acl/logout", ROOT);
    expect([root.status, root.text]).toEqual([403, "Permission denied"]);
    const none = await s.call("POST", "/v1/acl/logout");
    expect([none.status, none.text]).toEqual([403, "ACL not found"]);
  });

  it("deleting a method deletes the tokens it created", async () => {
    await ok(
      s.call("PUT", "/v1/acl/auth-method", ROOT, {
        Name: "short",
        Type: "jwt",
        Config: { ...config, JWTValidationPubKeys: [signer.publicPem] },
      }),
    );
    await ok(
      s.call("PUT", "/v1/acl/binding-rule", ROOT, {
        AuthMethod: "short",
        BindType: "service",
        BindName: "web",
      }),
    );
    const t = await ok(login("short", await signer.sign(claims())));
    const listed = await s.call<Token[]>("GET", "/v1/acl/tokens?authmethod=short", ROOT);
    expect(listed.body.map((x) => x.AccessorID)).toEqual([t.AccessorID]);
    expect((await s.call("DELETE", "/v1/acl/auth-method/short", ROOT)).body).toBe(true);
    const gone = await s.call("GET", `/v1/acl/token/${t.AccessorID}`, ROOT);
    expect([gone.status, gone.text]).toEqual([403, "ACL not found"]);
  });

  it("oidc methods refuse /acl/login", async () => {
    await ok(
      s.call("PUT", "/v1/acl/auth-method", ROOT, {
        Name: "sso",
        Type: "oidc",
        MaxTokenTTL: "5m",
        Config: {
          OIDCDiscoveryURL: "https://idp.test",
          OIDCClientID: "c",
          OIDCClientSecret: "s",
          AllowedRedirectURIs: ["http://localhost:8550/oidc/callback"],
          ClaimMappings: { sub: "user" },
        },
      }),
    );
    const r = await login("sso", await signer.sign(claims()));
    expect(r.status).toBe(403);
    expect(r.text).toContain('ClaimsFromJWT is incompatible with type "oidc"');
  });

  it("caches a remote key set and refetches it when a token names a rotated key", async () => {
    const next = rsaSigner();
    rotating = await signer.jwks("r1");
    await ok(
      s.call("PUT", "/v1/acl/auth-method", ROOT, {
        Name: "rotating",
        Type: "jwt",
        Config: { ...config, JWKSURL: `${jwks.url}/rotating` },
      }),
    );
    await ok(
      s.call("PUT", "/v1/acl/binding-rule", ROOT, {
        AuthMethod: "rotating",
        BindType: "service",
        BindName: "web",
      }),
    );
    const fetches = () => jwks.requests.filter((r) => r.path === "/rotating").length;
    await ok(login("rotating", await signer.sign(claims(), "r1")));
    await ok(login("rotating", await signer.sign(claims(), "r1")));
    expect(fetches()).toBe(1);
    rotating = await next.jwks("r2");
    // Within the minimum refresh interval a miss does not refetch.
    expect((await login("rotating", await next.sign(claims(), "r2"))).status).toBe(403);
    expect(fetches()).toBe(1);
    clock += 20_000;
    await ok(login("rotating", await next.sign(claims(), "r2")));
    expect(fetches()).toBe(2);
  });
});
