import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE, registerAgentNode, startServer, type TestServer } from "./harness.js";

interface Session {
  ID: string;
  Node: string;
  NodeChecks: string[];
  ServiceChecks: { ID: string; Namespace: string }[] | null;
  Checks?: string[];
}

const OTHER = "other-node";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await registerAgentNode(s);
  await registerAgentNode(s, OTHER);
  // A service with its own check on the other node, and a second node-level check there.
  const res = await s.json("PUT", "/v1/catalog/register", {
    Node: OTHER,
    Address: "127.0.0.2",
    Service: { ID: "web-1", Service: "web", Port: 80 },
    Checks: [
      { CheckID: "web-alive", Name: "web", ServiceID: "web-1", Status: "passing" },
      { CheckID: "disk", Name: "disk", Status: "passing" },
    ],
  });
  expect(res.status).toBe(200);
});
afterAll(() => s.close());

const create = (body?: unknown) => s.json<{ ID: string }>("PUT", "/v1/session/create", body);
const info = async (id: string) => (await s.json<Session[]>("GET", `/v1/session/info/${id}`)).body;
const setCheck = (CheckID: string, Status: string, ServiceID = "") =>
  s.json("PUT", "/v1/txn", [
    { Check: { Verb: "set", Check: { Node: OTHER, CheckID, Name: CheckID, Status, ServiceID } } },
  ]);

async function created(body: unknown): Promise<Session> {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const [session] = await info(res.body.ID);
  expect(session).toBeDefined();
  return session!;
}

describe("session checks as Consul 1.7+", () => {
  it("with no check list at all, the session depends on serfHealth as a node check; Checks is omitted", async () => {
    const session = await created({});
    expect(session.NodeChecks).toEqual(["serfHealth"]);
    expect(session.ServiceChecks).toBeNull();
    expect(session).not.toHaveProperty("Checks");
  });

  it.each([
    ["NodeChecks: []", { NodeChecks: [] }],
    ["Checks: []", { Checks: [] }],
    ["ServiceChecks: []", { ServiceChecks: [] }],
  ])("%s creates a session with no checks", async (_name, body) => {
    const session = await created(body);
    expect(session.NodeChecks).toEqual([]);
    expect(session.ServiceChecks).toBeNull();
    expect(session).not.toHaveProperty("Checks");
  });

  it("keeps the pre-1.7 Checks list apart from NodeChecks, without adding serfHealth", async () => {
    const session = await created({ Checks: ["serfHealth"] });
    expect(session.Checks).toEqual(["serfHealth"]);
    expect(session.NodeChecks).toEqual([]);
  });

  it('names another node\'s node and service checks; the default namespace is written as ""', async () => {
    const session = await created({
      Node: OTHER,
      NodeChecks: ["serfHealth", "disk"],
      ServiceChecks: [{ ID: "web-alive" }],
    });
    expect(session).toMatchObject({
      Node: OTHER,
      NodeChecks: ["serfHealth", "disk"],
      ServiceChecks: [{ ID: "web-alive", Namespace: "" }],
    });
  });

  it("is invalidated when a service check it names goes critical", async () => {
    const session = await created({ Node: OTHER, NodeChecks: [], ServiceChecks: [{ ID: "web-alive" }] });
    const bystander = await created({ Node: OTHER, NodeChecks: ["disk"] });
    expect((await setCheck("web-alive", "critical", "web-1")).status).toBe(200);
    expect(await info(session.ID)).toEqual([]);
    expect(await info(bystander.ID)).toHaveLength(1);
    expect((await setCheck("web-alive", "passing", "web-1")).status).toBe(200);
  });

  it("is invalidated when a node check it names goes critical or is removed", async () => {
    const onCritical = await created({ Node: OTHER, NodeChecks: ["disk"] });
    expect((await setCheck("disk", "critical")).status).toBe(200);
    expect(await info(onCritical.ID)).toEqual([]);
    expect((await setCheck("disk", "passing")).status).toBe(200);

    const onRemoval = await created({ Node: OTHER, NodeChecks: ["disk"] });
    const res = await s.json("PUT", "/v1/catalog/deregister", { Node: OTHER, CheckID: "disk" });
    expect(res.status).toBe(200);
    expect(await info(onRemoval.ID)).toEqual([]);
    expect((await setCheck("disk", "passing")).status).toBe(200);
  });

  it("is invalidated when the service whose check it names is deregistered", async () => {
    const session = await created({ Node: OTHER, NodeChecks: [], ServiceChecks: [{ ID: "web-alive" }] });
    const res = await s.json("PUT", "/v1/catalog/deregister", { Node: OTHER, ServiceID: "web-1" });
    expect(res.status).toBe(200);
    expect(await info(session.ID)).toEqual([]);
  });

  it.each([
    ["a missing node check", { NodeChecks: ["nope"] }, /^Missing check 'nope' registration$/],
    ["a missing service check", { ServiceChecks: [{ ID: "nope" }] }, /^Missing check 'nope' registration$/],
    ["a check of another node", { Node: NODE, NodeChecks: ["disk"] }, /^Missing check 'disk' registration$/],
    ["a service check without ID", { ServiceChecks: [{ ID: "" }] }, /ServiceChecks\[0\]: missing check ID/],
    ["ServiceChecks that is not a list", { ServiceChecks: "web" }, /ServiceChecks/],
    ["NodeChecks that is not a list of strings", { NodeChecks: [1] }, /NodeChecks/],
  ])("refuses %s with a one-line 400 and stores nothing", async (_name, body, reason) => {
    const before = (await s.json<Session[]>("GET", "/v1/session/list")).body.length;
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(String(res.body)).toMatch(reason);
    expect(String(res.body)).not.toMatch(/\n/);
    expect((await s.json<Session[]>("GET", "/v1/session/list")).body.length).toBe(before);
  });

  it("refuses a check in critical state", async () => {
    expect((await setCheck("disk", "critical")).status).toBe(200);
    const res = await create({ Node: OTHER, NodeChecks: ["disk"] });
    expect(res.status).toBe(400);
    expect(res.body).toBe("Check 'disk' is in critical state");
    expect((await setCheck("disk", "passing")).status).toBe(200);
  });
});
