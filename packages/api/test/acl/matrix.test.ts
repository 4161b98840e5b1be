import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rsaSigner } from "../auth-methods/fixtures.js";
import { type AclServer, ROOT, startAclServer } from "./harness.js";

/**
 * The authorization matrix: every endpoint of the three specs served by the HTTP API, with the rules that
 * grant exactly its ACL-required cell. A token holding those rules gets past the ACL check; a token
 * without them gets 403 `Permission denied`, or — for the reads Consul filters — an answer with fewer
 * records than the granted token sees.
 */

type Denied = 403 | "filtered" | { status: number; body: unknown };

interface Row {
  readonly method: "GET" | "PUT" | "POST" | "DELETE";
  /** `{session}`, `{session2}`, `{query}`, `{token}` are filled in from the fixtures. */
  readonly path: string;
  readonly body?: unknown;
  /** HCL rules granting exactly the cell's privilege. */
  readonly rules: string;
  readonly denied: Denied;
  /** `login`: the granted token is one a fresh login made (logout needs the token itself, no rule). */
  readonly granted?: "login";
}

const KEY_READ = 'key_prefix "app/" { policy = "read" }';
const KEY_WRITE = 'key_prefix "app/" { policy = "write" }';
const NODE_READ = 'node_prefix "" { policy = "read" }';
const SERVICE_READ = 'service_prefix "" { policy = "read" }';
const SESSION_READ = 'session_prefix "" { policy = "read" }';
const SESSION_WRITE = 'session "n1" { policy = "write" }';
const QUERY_READ = 'query_prefix "" { policy = "read" }';
const QUERY_WRITE = 'query_prefix "q" { policy = "write" }';
const signer = rsaSigner();
const jwtMethod = (name: string) => ({
  Name: name,
  Type: "jwt",
  Config: { JWTValidationPubKeys: [signer.publicPem] },
});
const rule = { AuthMethod: "m-jwt", BindType: "service", BindName: "svc" };
/** The bearer token is signed in beforeAll. */
const loginBody = { AuthMethod: "m-jwt", BearerToken: "" };
const coord = { Vec: [0, 0, 0, 0, 0, 0, 0, 0], Error: 1.5, Adjustment: 0, Height: 1e-5 };

const MATRIX: readonly Row[] = [
  // KV
  { method: "GET", path: "/v1/kv/app/k", rules: KEY_READ, denied: 403 },
  { method: "PUT", path: "/v1/kv/app/new", body: "v", rules: KEY_WRITE, denied: 403 },
  { method: "DELETE", path: "/v1/kv/app/gone", rules: KEY_WRITE, denied: 403 },
  { method: "GET", path: "/v1/kv/app/?recurse", rules: KEY_READ, denied: { status: 404, body: "" } },
  { method: "GET", path: "/v1/kv/app/?keys", rules: KEY_READ, denied: { status: 404, body: "" } },
  // Transactions: a refused operation rolls the transaction back.
  {
    method: "PUT",
    path: "/v1/txn",
    body: [{ KV: { Verb: "get", Key: "app/k" } }],
    rules: KEY_READ,
    denied: { status: 409, body: { Errors: [{ OpIndex: 0, What: "Permission denied" }], Results: null } },
  },
  // Sessions
  { method: "PUT", path: "/v1/session/create", body: { Node: "n1" }, rules: SESSION_WRITE, denied: 403 },
  { method: "GET", path: "/v1/session/info/{session}", rules: SESSION_READ, denied: "filtered" },
  { method: "GET", path: "/v1/session/node/n1", rules: SESSION_READ, denied: "filtered" },
  { method: "GET", path: "/v1/session/list", rules: SESSION_READ, denied: "filtered" },
  { method: "PUT", path: "/v1/session/renew/{session}", rules: SESSION_WRITE, denied: 403 },
  { method: "PUT", path: "/v1/session/destroy/{session2}", rules: SESSION_WRITE, denied: 403 },
  // Catalog
  {
    method: "PUT",
    path: "/v1/catalog/register",
    body: { Node: "n2", Address: "10.0.0.2", Service: { Service: "api" } },
    rules: 'node "n2" { policy = "write" }\nservice "api" { policy = "write" }',
    denied: 403,
  },
  {
    method: "PUT",
    path: "/v1/catalog/deregister",
    body: { Node: "n1", ServiceID: "cache" },
    rules: 'node "n1" { policy = "write" }\nservice "cache" { policy = "write" }',
    denied: 403,
  },
  { method: "GET", path: "/v1/catalog/datacenters", rules: "", denied: { status: 200, body: ["dc1"] } },
  { method: "GET", path: "/v1/catalog/nodes", rules: NODE_READ, denied: "filtered" },
  { method: "GET", path: "/v1/catalog/services", rules: SERVICE_READ, denied: "filtered" },
  {
    method: "GET",
    path: "/v1/catalog/service/web",
    rules: `${NODE_READ}\n${SERVICE_READ}`,
    denied: "filtered",
  },
  { method: "GET", path: "/v1/catalog/node/n1", rules: `${NODE_READ}\n${SERVICE_READ}`, denied: "filtered" },
  // Health
  { method: "GET", path: "/v1/health/node/n1", rules: NODE_READ, denied: "filtered" },
  {
    method: "GET",
    path: "/v1/health/checks/web",
    rules: `${NODE_READ}\n${SERVICE_READ}`,
    denied: "filtered",
  },
  {
    method: "GET",
    path: "/v1/health/service/web",
    rules: `${NODE_READ}\n${SERVICE_READ}`,
    denied: "filtered",
  },
  { method: "GET", path: "/v1/health/state/any", rules: `${NODE_READ}\n${SERVICE_READ}`, denied: "filtered" },
  // Coordinates
  { method: "GET", path: "/v1/coordinate/nodes", rules: NODE_READ, denied: "filtered" },
  {
    method: "PUT",
    path: "/v1/coordinate/update",
    body: { Node: "n1", Coord: coord },
    rules: 'node "n1" { policy = "write" }',
    denied: 403,
  },
  // Config entries (spec 3: privileges by kind)
  {
    method: "PUT",
    path: "/v1/config",
    body: { Kind: "service-defaults", Name: "web", Protocol: "http" },
    rules: 'service "web" { policy = "write" }',
    denied: 403,
  },
  {
    method: "GET",
    path: "/v1/config/service-defaults/web",
    rules: 'service "web" { policy = "read" }',
    denied: 403,
  },
  { method: "GET", path: "/v1/config/service-defaults", rules: SERVICE_READ, denied: "filtered" },
  {
    method: "DELETE",
    path: "/v1/config/service-defaults/other",
    rules: 'service "other" { policy = "write" }',
    denied: 403,
  },
  // Prepared queries
  {
    method: "POST",
    path: "/v1/query",
    body: { Name: "q-new", Service: { Service: "web" } },
    rules: QUERY_WRITE,
    denied: 403,
  },
  { method: "GET", path: "/v1/query", rules: QUERY_READ, denied: "filtered" },
  { method: "GET", path: "/v1/query/{query}", rules: QUERY_READ, denied: 403 },
  { method: "GET", path: "/v1/query/{query}/explain", rules: QUERY_READ, denied: 403 },
  // ACL (spec 1)
  { method: "PUT", path: "/v1/acl/token", body: {}, rules: 'acl = "write"', denied: 403 },
  { method: "GET", path: "/v1/acl/token/{token}", rules: 'acl = "read"', denied: 403 },
  {
    method: "PUT",
    path: "/v1/acl/token/{token}",
    body: { Description: "x" },
    rules: 'acl = "write"',
    denied: 403,
  },
  { method: "PUT", path: "/v1/acl/token/{token}/clone", body: {}, rules: 'acl = "write"', denied: 403 },
  { method: "GET", path: "/v1/acl/tokens", rules: 'acl = "read"', denied: 403 },
  {
    method: "PUT",
    path: "/v1/acl/policy",
    body: { Name: "mx", Rules: "" },
    rules: 'acl = "write"',
    denied: 403,
  },
  { method: "GET", path: "/v1/acl/policies", rules: 'acl = "read"', denied: 403 },
  { method: "PUT", path: "/v1/acl/role", body: { Name: "rx" }, rules: 'acl = "write"', denied: 403 },
  { method: "GET", path: "/v1/acl/roles", rules: 'acl = "read"', denied: 403 },
  { method: "PUT", path: "/v1/acl/create", body: { Name: "l" }, rules: 'acl = "write"', denied: 403 },
  { method: "GET", path: "/v1/acl/list", rules: 'acl = "write"', denied: 403 },
  { method: "GET", path: "/v1/acl/replication", rules: "", denied: { status: 200, body: undefined } },
  // Auth methods, binding rules, login and logout (spec 1)
  {
    method: "PUT",
    path: "/v1/acl/auth-method",
    body: jwtMethod("m-new"),
    rules: 'acl = "write"',
    denied: 403,
  },
  { method: "GET", path: "/v1/acl/auth-method/m-jwt", rules: 'acl = "read"', denied: 403 },
  {
    method: "PUT",
    path: "/v1/acl/auth-method/m-jwt",
    body: { ...jwtMethod("m-jwt"), Description: "d" },
    rules: 'acl = "write"',
    denied: 403,
  },
  { method: "DELETE", path: "/v1/acl/auth-method/m-gone", rules: 'acl = "write"', denied: 403 },
  { method: "GET", path: "/v1/acl/auth-methods", rules: 'acl = "read"', denied: 403 },
  { method: "PUT", path: "/v1/acl/binding-rule", body: rule, rules: 'acl = "write"', denied: 403 },
  { method: "GET", path: "/v1/acl/binding-rule/{rule}", rules: 'acl = "read"', denied: 403 },
  { method: "PUT", path: "/v1/acl/binding-rule/{rule}", body: rule, rules: 'acl = "write"', denied: 403 },
  { method: "DELETE", path: "/v1/acl/binding-rule/{rule2}", rules: 'acl = "write"', denied: 403 },
  { method: "GET", path: "/v1/acl/binding-rules", rules: 'acl = "read"', denied: 403 },
  {
    method: "POST",
    path: "/v1/acl/login",
    body: loginBody,
    rules: "",
    denied: { status: 200, body: undefined },
  },
  { method: "POST", path: "/v1/acl/logout", rules: "", granted: "login", denied: 403 },
  // Namespaces (spec 1)
  { method: "PUT", path: "/v1/namespace", body: { Name: "made" }, rules: 'operator = "write"', denied: 403 },
  { method: "GET", path: "/v1/namespace/team", rules: 'operator = "read"', denied: 403 },
  {
    method: "PUT",
    path: "/v1/namespace/team",
    body: { Description: "d" },
    rules: 'operator = "write"',
    denied: 403,
  },
  { method: "GET", path: "/v1/namespaces", rules: 'operator = "read"', denied: "filtered" },
  { method: "DELETE", path: "/v1/namespace/doomed", rules: 'operator = "write"', denied: 403 },
  // Snapshots (Consul: management)
  { method: "GET", path: "/v1/snapshot", rules: 'acl = "write"', denied: 403 },
];

let s: AclServer;
const ids: Record<string, string> = {};
/** A token whose only rule concerns something none of the rows touch. */
let unrelated = "";

beforeAll(async () => {
  s = await startAclServer();
  const put = async (path: string, body: unknown) => {
    const r = await s.call<Record<string, string>>(
      path.startsWith("/v1/query") ? "POST" : "PUT",
      path,
      ROOT,
      body,
    );
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  await put("/v1/catalog/register", {
    Node: "n1",
    Address: "10.0.0.1",
    Service: { Service: "web" },
    Checks: [
      { CheckID: "serfHealth", Name: "Serf", Status: "passing" },
      { CheckID: "web-alive", Name: "web", Status: "passing", ServiceID: "web" },
    ],
  });
  await put("/v1/catalog/register", { Node: "n1", Address: "10.0.0.1", Service: { Service: "cache" } });
  await put("/v1/coordinate/update", { Node: "n1", Coord: coord });
  // Coordinate updates are batched (10 ms here).
  await new Promise((resolve) => setTimeout(resolve, 100));
  await put("/v1/kv/app/k", "v");
  ids.session = (await put("/v1/session/create", { Node: "n1" })).ID ?? "";
  ids.session2 = (await put("/v1/session/create", { Node: "n1" })).ID ?? "";
  ids.query = (await put("/v1/query", { Name: "q1", Service: { Service: "web" } })).ID ?? "";
  ids.token = (await put("/v1/acl/token", { Description: "target" })).AccessorID ?? "";
  await put("/v1/config", { Kind: "service-defaults", Name: "web", Protocol: "http" });
  await put("/v1/namespace", { Name: "team" });
  await put("/v1/namespace", { Name: "doomed" });
  await put("/v1/acl/auth-method", jwtMethod("m-jwt"));
  await put("/v1/acl/auth-method", jwtMethod("m-gone"));
  ids.rule = (await put("/v1/acl/binding-rule", rule)).ID ?? "";
  ids.rule2 = (await put("/v1/acl/binding-rule", rule)).ID ?? "";
  loginBody.BearerToken = await signer.sign({ sub: "alice", iat: Math.floor(Date.now() / 1000) });
  unrelated = await s.tokenWith('key "unrelated" { policy = "read" }');
});
afterAll(() => s.close());

const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, k: string) => ids[k] ?? "");

async function loggedIn(): Promise<string> {
  const r = await s.call<{ SecretID: string }>("POST", "/v1/acl/login", undefined, loginBody);
  if (r.status !== 200) throw new Error(`login: ${r.status} ${r.text}`);
  return r.body.SecretID;
}

/** How many records a list read returned (null: none). */
function size(body: unknown): number {
  if (body === null || body === "") return 0;
  if (Array.isArray(body)) return body.length;
  if (typeof body === "object") return Object.keys(body as object).length;
  return 1;
}

describe("authorization matrix", () => {
  for (const row of MATRIX) {
    it(`${row.method} ${row.path}`, async () => {
      const path = fill(row.path);
      const granted =
        row.granted === "login"
          ? await loggedIn()
          : row.rules === ""
            ? unrelated
            : await s.tokenWith(row.rules);
      const denied = await s.call(row.method, path, unrelated, row.body);
      if (row.denied === 403) {
        expect(denied.status, denied.text).toBe(403);
        expect(denied.text).toBe("Permission denied");
      } else if (row.denied === "filtered") {
        expect(denied.status, denied.text).toBe(200);
      } else {
        expect(denied.status, denied.text).toBe(row.denied.status);
        if (row.denied.body !== undefined) expect(denied.body).toEqual(row.denied.body);
      }
      const allowed = await s.call(row.method, path, granted, row.body);
      expect(allowed.status, allowed.text).not.toBe(403);
      expect(allowed.status, allowed.text).toBeLessThan(400);
      if (row.denied === "filtered") expect(size(denied.body), denied.text).toBeLessThan(size(allowed.body));
    });
  }
});
