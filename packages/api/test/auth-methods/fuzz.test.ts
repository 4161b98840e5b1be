import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AclServer, ROOT, startAclServer } from "../acl/harness.js";

/** Any auth-method, binding-rule or login body is stored or refused with a one-line 4xx, never a fault. */

let s: AclServer;
beforeAll(async () => {
  s = await startAclServer();
  const r = await s.call("PUT", "/v1/acl/auth-method", ROOT, {
    Name: "fz",
    Type: "jwt",
    Config: { JWTValidationPubKeys: [], JWKSURL: "http://127.0.0.1:9/jwks", ClaimMappings: { sub: "user" } },
  });
  expect(r.status, r.text).toBe(200);
});
afterAll(() => s.close());

const json = fc.jsonValue({ maxDepth: 2 });
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("", "fz", "jwt", "kubernetes", "oidc", "1m", "25h", "local"),
);
const configKey = fc.constantFrom(
  "Host",
  "CACert",
  "ServiceAccountJWT",
  "JWKSURL",
  "JWTValidationPubKeys",
  "OIDCDiscoveryURL",
  "BoundAudiences",
  "ClaimMappings",
  "ListClaimMappings",
  "ExpirationLeeway",
  "JWTSupportedAlgs",
  "OIDCClientID",
  "AllowedRedirectURIs",
  "Other",
);

const methodBody = fc.record(
  {
    Name: text,
    Type: text,
    MaxTokenTTL: fc.oneof(text, fc.integer()),
    TokenLocality: text,
    Config: fc.dictionary(configKey, json, { maxKeys: 4 }),
    NamespaceRules: fc.array(fc.record({ Selector: text, BindNamespace: text }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const ruleBody = fc.record(
  {
    AuthMethod: fc.constantFrom("fz", "", "missing"),
    Selector: fc.oneof(text, fc.constantFrom("value.user == a", '"x" in list.g', "value.user ==")),
    BindType: fc.constantFrom("service", "node", "role", "policy", "", "x"),
    BindName: fc.oneof(text, fc.constantFrom("a-$" + "{value.user}", "$" + "{", "$" + "{nope}")),
  },
  { requiredKeys: [] },
);

function wellFormed(r: { status: number; text: string }) {
  expect([200, 400, 403, 404], r.text).toContain(r.status);
  if (r.status !== 200) expect(r.text).not.toMatch(/[\r\n]/);
}

describe("auth-method endpoints under arbitrary bodies", () => {
  it("methods", async () => {
    await fc.assert(
      fc.asyncProperty(methodBody, async (body) =>
        wellFormed(await s.call("PUT", "/v1/acl/auth-method", ROOT, body)),
      ),
      { numRuns: 150 },
    );
  });

  it("binding rules", async () => {
    await fc.assert(
      fc.asyncProperty(ruleBody, async (body) =>
        wellFormed(await s.call("PUT", "/v1/acl/binding-rule", ROOT, body)),
      ),
      { numRuns: 150 },
    );
  });

  it("logins", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ AuthMethod: fc.constantFrom("fz", "nope", ""), BearerToken: text }),
        async (body) => wellFormed(await s.call("POST", "/v1/acl/login", undefined, body)),
      ),
      { numRuns: 60 },
    );
  });
});
