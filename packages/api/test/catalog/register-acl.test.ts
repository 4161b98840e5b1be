import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AclServer, ROOT, startAclServer } from "../acl/harness.js";

let s: AclServer;
let web = "";

const NODE = { Node: "n1", Address: "10.0.0.1", NodeMeta: { rack: "a" } };

const register = (token: string, body: Record<string, unknown>) =>
  s.call("PUT", "/v1/catalog/register?ns=team", token, body);

beforeAll(async () => {
  s = await startAclServer();
  expect((await s.call("PUT", "/v1/namespace", ROOT, { Name: "team" })).status).toBe(200);
  expect((await s.call("PUT", "/v1/catalog/register", ROOT, NODE)).status).toBe(200);
  web = await s.tokenWith(`service "web" { policy = "write" }\nnode_prefix "" { policy = "read" }`, "team");
});
afterAll(() => s.close());

describe("catalog register asks node:write only when the node entry would change", () => {
  it("a service-only token registers its service on an existing node, re-posting the node unchanged", async () => {
    const res = await register(web, { ...NODE, Service: { Service: "web", Port: 80 } });
    expect(res.status, res.text).toBe(200);
    const listed = await s.call<Array<{ Namespace: string }>>("GET", "/v1/catalog/service/web?ns=team", ROOT);
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0]?.Namespace).toBe("team");
  });

  it("with SkipNodeUpdate the node fields are ignored and need no node:write", async () => {
    const res = await register(web, {
      Node: "n1",
      Address: "10.9.9.9",
      SkipNodeUpdate: true,
      Service: { Service: "web", Port: 81 },
      Checks: [{ CheckID: "web-alive", ServiceID: "web", Status: "passing" }],
    });
    expect(res.status, res.text).toBe(200);
    const node = await s.call<{ Node: { Address: string } }>("GET", "/v1/catalog/node/n1", ROOT);
    expect(node.body.Node.Address).toBe("10.0.0.1");
  });

  it("changing the node, creating one, or a node-level check needs node:write", async () => {
    const svc = { Service: { Service: "web" } };
    for (const body of [
      { ...NODE, Address: "10.0.0.2", ...svc },
      { ...NODE, NodeMeta: { rack: "b" }, ...svc },
      { ...NODE, TaggedAddresses: { lan: "10.0.0.1" }, ...svc },
      { Node: "n2", Address: "10.0.0.2", ...svc },
      { Node: "n2", Address: "10.0.0.2", SkipNodeUpdate: true, ...svc },
      { ...NODE, ...svc, Checks: [{ CheckID: "disk", Status: "passing" }] },
    ]) {
      const res = await register(web, body);
      expect(res.status, JSON.stringify(body)).toBe(403);
    }
    const nodes = await s.call<Array<{ Node: string }>>("GET", "/v1/catalog/nodes", ROOT);
    expect(nodes.body.map((n) => n.Node)).toEqual(["n1"]);
  });

  it("needs service:write for the service, for one it replaces by ID, and for another service's check", async () => {
    expect((await register(web, { ...NODE, Service: { Service: "db" } })).status).toBe(403);
    const api = { ...NODE, Service: { ID: "x", Service: "api" } };
    expect((await register(ROOT, api)).status).toBe(200);
    expect((await register(web, { ...NODE, Service: { ID: "x", Service: "web" } })).status).toBe(403);
    const apiCheck = { ...NODE, Checks: [{ CheckID: "api-alive", ServiceID: "x", Status: "passing" }] };
    expect((await register(web, apiCheck)).status).toBe(403);
    expect((await register(ROOT, apiCheck)).status).toBe(200);
  });

  it("a request naming no namespace inherits the token's; the default namespace stays out of reach", async () => {
    const res = await s.call("PUT", "/v1/catalog/register", web, { ...NODE, Service: { Service: "web" } });
    expect(res.status).toBe(200);
    const inDefault = { ...NODE, Service: { Service: "web" } };
    expect((await s.call("PUT", "/v1/catalog/register?ns=default", web, inDefault)).status).toBe(403);
  });
});
