import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AclServer, ROOT, startAclServer } from "../acl/harness.js";
import { fakeJwt, selfSignedCert, startHttps, type TestServer } from "./fixtures.js";

/** A HIL `${name}` reference (kept out of string literals, which read like JS templates). */
const hil = (name: string) => ["$", "{", name, "}"].join("");

const cert = selfSignedCert();
const reviewer = fakeJwt("system:serviceaccount:kube-system:consul-auth");
const webToken = fakeJwt("web");
const apiToken = fakeJwt("api");
/** Bearer tokens the fake cluster knows, and the service accounts they belong to. */
const accounts = new Map([
  [webToken, { username: "system:serviceaccount:prod:web", uid: "uid-web" }],
  [apiToken, { username: "system:serviceaccount:prod:api", uid: "uid-api" }],
]);

let s: AclServer;
let k8s: TestServer;

/** A fake Kubernetes API: TokenReview and ServiceAccount reads, only for the reviewer's JWT. */
function kubernetes(req: { method: string; path: string; auth: string; body: unknown }) {
  if (req.auth !== `Bearer ${reviewer}`)
    return { status: 401, body: { kind: "Status", message: "Unauthorized" } };
  if (req.method === "POST" && req.path === "/apis/authentication.k8s.io/v1/tokenreviews") {
    const token = (req.body as { spec?: { token?: string } }).spec?.token ?? "";
    const user = accounts.get(token);
    return {
      status: 201,
      body: { kind: "TokenReview", status: user ? { authenticated: true, user } : { authenticated: false } },
    };
  }
  const sa = /^\/api\/v1\/namespaces\/([^/]+)\/serviceaccounts\/([^/]+)$/.exec(req.path);
  if (req.method === "GET" && sa) {
    const annotations = sa[2] === "api" ? { "consul.hashicorp.com/service-name": "api-renamed" } : {};
    return {
      status: 200,
      body: { kind: "ServiceAccount", metadata: { name: sa[2], namespace: sa[1], annotations } },
    };
  }
  return { status: 404, body: { kind: "Status", message: "not found" } };
}

const login = (method: string, bearer: string) =>
  s.call<{ ServiceIdentities?: Array<{ ServiceName: string }>; AuthMethod: string }>(
    "POST",
    "/v1/acl/login",
    undefined,
    { AuthMethod: method, BearerToken: bearer },
  );

beforeAll(async () => {
  s = await startAclServer();
  k8s = await startHttps(cert, kubernetes);
  const method = (name: string, config: Record<string, string>) =>
    s.call("PUT", "/v1/acl/auth-method", ROOT, {
      Name: name,
      Type: "kubernetes",
      Config: { Host: k8s.url, CACert: cert.certPem, ServiceAccountJWT: reviewer, ...config },
    });
  expect((await method("k8s", {})).status).toBe(200);
  expect((await method("wrong-ca", { CACert: selfSignedCert().certPem })).status).toBe(200);
  expect((await method("wrong-reviewer", { ServiceAccountJWT: fakeJwt("nobody") })).status).toBe(200);
  for (const name of ["k8s", "wrong-ca", "wrong-reviewer"]) {
    const r = await s.call("PUT", "/v1/acl/binding-rule", ROOT, {
      AuthMethod: name,
      Selector: "serviceaccount.namespace == prod",
      BindType: "service",
      BindName: hil("serviceaccount.name"),
    });
    expect(r.status, r.text).toBe(200);
  }
});
afterAll(async () => {
  await s.close();
  await k8s.close();
});

describe("kubernetes login", () => {
  it("an authenticated service account gets its service identity (TokenReview over TLS with the CA)", async () => {
    const r = await login("k8s", webToken);
    expect(r.status, r.text).toBe(200);
    expect(r.body.ServiceIdentities).toEqual([{ ServiceName: "web" }]);
    expect(r.body.AuthMethod).toBe("k8s");
    const review = k8s.requests.find((q) => q.path.endsWith("/tokenreviews"));
    expect(review?.body).toMatchObject({ kind: "TokenReview", spec: { token: webToken } });
  });

  it("the service-name annotation overrides the account name", async () => {
    const r = await login("k8s", apiToken);
    expect(r.status, r.text).toBe(200);
    expect(r.body.ServiceIdentities).toEqual([{ ServiceName: "api-renamed" }]);
  });

  it("a token the cluster does not authenticate is refused", async () => {
    const r = await login("k8s", fakeJwt("stranger"));
    expect(r.status).toBe(403);
    expect(r.text).toBe("Permission denied: lookup failed: service account jwt not valid");
    const garbage = await login("k8s", "garbage");
    expect(garbage.status).toBe(403);
  });

  it("an untrusted certificate or a refused reviewer token fails the lookup (500, nothing created)", async () => {
    const before = (await s.call<unknown[]>("GET", "/v1/acl/tokens", ROOT)).body.length;
    const tls = await login("wrong-ca", webToken);
    expect(tls.status).toBe(500);
    const denied = await login("wrong-reviewer", webToken);
    expect(denied.status).toBe(500);
    expect(denied.text).toBe("lookup failed: Unauthorized");
    expect((await s.call<unknown[]>("GET", "/v1/acl/tokens", ROOT)).body).toHaveLength(before);
  });
});
