import { COMMAND_VERSION } from "@cairn/fsm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE, startServer, type TestServer } from "../http/harness.js";
import { coordAt, expect400, getJson, register } from "./fixtures.js";

let s: TestServer;
type Rec = Record<string, unknown>;
interface Entry {
  Node: Rec;
  Service: Rec;
  Checks: Rec[];
}

/** A node as an agent registers it: its address, meta and the serfHealth node check. */
async function agentNode(node: string, serf: string, meta: Record<string, string> = {}): Promise<void> {
  await register(s, {
    Node: node,
    Address: `10.1.0.${node.slice(1)}`,
    NodeMeta: meta,
    Check: { CheckID: "serfHealth", Name: "Serf Health Status", Status: serf },
  });
}

async function service(node: string, status: string, tags: string[] = []): Promise<void> {
  await register(s, {
    Node: node,
    Address: `10.1.0.${node.slice(1)}`,
    SkipNodeUpdate: true,
    Service: { ID: "api", Service: "api", Tags: tags, Port: 9000 },
    Check: { CheckID: "service:api", Name: "api alive", ServiceID: "api", Status: status },
  });
}

beforeAll(async () => {
  s = await startServer();
  await register(s, { Node: NODE, Address: "127.0.0.1" });
  await agentNode("h1", "passing", { zone: "a" });
  await service("h1", "passing", ["blue"]);
  await agentNode("h2", "passing", { zone: "b" });
  await service("h2", "warning", ["blue"]);
  await agentNode("h3", "critical", { zone: "a" });
  await service("h3", "passing");
  await agentNode("h4", "passing");
  await service("h4", "passing");
  await agentNode("h5", "passing");
  await service("h5", "passing");
  // Maintenance as the agent records it: a critical check with the reserved IDs.
  await register(s, {
    Node: "h4",
    Address: "10.1.0.4",
    SkipNodeUpdate: true,
    Check: { CheckID: "_node_maintenance", Name: "Node Maintenance Mode", Status: "critical" },
  });
  await register(s, {
    Node: "h5",
    Address: "10.1.0.5",
    SkipNodeUpdate: true,
    Check: {
      CheckID: "_service_maintenance:api",
      Name: "Service Maintenance Mode",
      ServiceID: "api",
      Status: "critical",
    },
  });
  await s.backend.apply({
    v: COMMAND_VERSION,
    type: "coordinate.batch-update",
    updates: ["h1", "h2", "h3", "h4", "h5"].map((n, i) => ({ Node: n, Coord: coordAt(0.5 - i * 0.1) })),
  });
});
afterAll(() => s.close());

const nodesOf = (entries: Entry[]) => entries.map((e) => e.Node.Node);

describe("/health/service/:service", () => {
  it("lists every instance with its node's checks and its own, in Consul's shape", async () => {
    const { body } = await getJson<Entry[]>(s, "/v1/health/service/api");
    expect(nodesOf(body)).toEqual(["h1", "h2", "h3", "h4", "h5"]);
    expect(Object.keys(body[0]!)).toEqual(["Node", "Service", "Checks"]);
    expect(body[0]!.Checks.map((c) => c.CheckID).sort()).toEqual(["serfHealth", "service:api"]);
    expect(Object.keys(body[0]!.Checks[0]!)).toEqual([
      "Node",
      "CheckID",
      "Name",
      "Status",
      "Notes",
      "Output",
      "ServiceID",
      "ServiceName",
      "ServiceTags",
      "Type",
      "ExposedPort",
      "Definition",
      "CreateIndex",
      "ModifyIndex",
    ]);
    expect(body[0]!.Checks.find((c) => c.CheckID === "serfHealth")!.ServiceTags).toEqual([]);
  });

  it("passing drops any entry with a warning or critical check, maintenance and serfHealth included", async () => {
    expect(nodesOf((await getJson<Entry[]>(s, "/v1/health/service/api?passing")).body)).toEqual(["h1"]);
    expect(nodesOf((await getJson<Entry[]>(s, "/v1/health/service/api?passing=true")).body)).toEqual(["h1"]);
    expect((await getJson<Entry[]>(s, "/v1/health/service/api?passing=false")).body).toHaveLength(5);
    await expect400(await s.req("GET", "/v1/health/service/api?passing=maybe"), "Invalid value for ?passing");
  });

  it("a node leaving maintenance comes back to passing results", async () => {
    const res = await s.req(
      "PUT",
      "/v1/catalog/deregister",
      JSON.stringify({ Node: "h4", CheckID: "_node_maintenance" }),
    );
    expect(res.status).toBe(200);
    expect(nodesOf((await getJson<Entry[]>(s, "/v1/health/service/api?passing")).body)).toEqual(["h1", "h4"]);
    await register(s, {
      Node: "h4",
      Address: "10.1.0.4",
      SkipNodeUpdate: true,
      Check: { CheckID: "_node_maintenance", Name: "Node Maintenance Mode", Status: "critical" },
    });
    expect(nodesOf((await getJson<Entry[]>(s, "/v1/health/service/api?passing")).body)).toEqual(["h1"]);
  });

  it("tag, node-meta and near", async () => {
    expect(nodesOf((await getJson<Entry[]>(s, "/v1/health/service/api?tag=blue")).body)).toEqual([
      "h1",
      "h2",
    ]);
    expect(nodesOf((await getJson<Entry[]>(s, "/v1/health/service/api?tag=blue&tag=red")).body)).toEqual([]);
    // Consul's state store compares tags case-insensitively.
    expect(nodesOf((await getJson<Entry[]>(s, "/v1/health/service/api?tag=Blue")).body)).toEqual([
      "h1",
      "h2",
    ]);
    expect(nodesOf((await getJson<Entry[]>(s, "/v1/health/service/api?node-meta=zone:a")).body)).toEqual([
      "h1",
      "h3",
    ]);
    expect(nodesOf((await getJson<Entry[]>(s, "/v1/health/service/api?near=h5")).body)).toEqual([
      "h5",
      "h4",
      "h3",
      "h2",
      "h1",
    ]);
  });

  it("filter with the health schema; refused selector and operator are 400s", async () => {
    const q = encodeURIComponent('Checks.Status == warning or Node.Meta.zone == "a"');
    expect(nodesOf((await getJson<Entry[]>(s, `/v1/health/service/api?filter=${q}`)).body)).toEqual([
      "h1",
      "h2",
      "h3",
    ]);
    await expect400(
      await s.req("GET", `/v1/health/service/api?filter=${encodeURIComponent("ServiceName == api")}`),
      /Selector "ServiceName" is not valid/,
    );
    await expect400(
      await s.req("GET", `/v1/health/service/api?filter=${encodeURIComponent('Service.Port matches "9"')}`),
      /Invalid match operator "Matches" for selector "Service.Port"/,
    );
  });
});

describe("/health/checks, /health/node, /health/state", () => {
  it("checks of a service, with filter", async () => {
    const { body } = await getJson<Rec[]>(s, "/v1/health/checks/api");
    expect(body.map((c) => `${c.Node}/${c.CheckID}`).sort()).toEqual([
      "h1/service:api",
      "h2/service:api",
      "h3/service:api",
      "h4/service:api",
      "h5/_service_maintenance:api",
      "h5/service:api",
    ]);
    const q = encodeURIComponent("Status != passing");
    expect(
      (await getJson<Rec[]>(s, `/v1/health/checks/api?filter=${q}`)).body.map((c) => c.Node).sort(),
    ).toEqual(["h2", "h5"]);
    expect(
      (await getJson<Rec[]>(s, "/v1/health/checks/api?node-meta=zone:b")).body.map((c) => c.Node),
    ).toEqual(["h2"]);
    await expect400(
      await s.req("GET", `/v1/health/checks/api?filter=${encodeURIComponent("Definition.HTTP == x")}`),
      /Selector "Definition" is not valid/,
    );
  });

  it("checks of a node: node-level and its services'", async () => {
    const { body } = await getJson<Rec[]>(s, "/v1/health/node/h4");
    expect(body.map((c) => c.CheckID).sort()).toEqual(["_node_maintenance", "serfHealth", "service:api"]);
    expect((await getJson<Rec[]>(s, "/v1/health/node/unknown")).body).toEqual([]);
  });

  it("checks in a state: any, passing, warning, critical; anything else is a 400", async () => {
    const critical = (await getJson<Rec[]>(s, "/v1/health/state/critical")).body;
    expect(critical.map((c) => `${c.Node}/${c.CheckID}`).sort()).toEqual([
      "h3/serfHealth",
      "h4/_node_maintenance",
      "h5/_service_maintenance:api",
    ]);
    expect((await getJson<Rec[]>(s, "/v1/health/state/warning")).body.map((c) => c.Node)).toEqual(["h2"]);
    expect((await getJson<Rec[]>(s, "/v1/health/state/any")).body).toHaveLength(12);
    expect(
      (await getJson<Rec[]>(s, "/v1/health/state/critical?node-meta=zone:a")).body.map((c) => c.Node),
    ).toEqual(["h3"]);
    await expect400(await s.req("GET", "/v1/health/state/broken"), /Invalid check state "broken"/);
    await expect400(await s.req("GET", "/v1/health/state/"), "Missing check state");
  });
});

describe("/health/connect/:service", () => {
  it("lists Connect-capable instances with their checks, and honours passing", async () => {
    await agentNode("h6", "passing");
    await register(s, {
      Node: "h6",
      Address: "10.1.0.6",
      SkipNodeUpdate: true,
      Service: {
        ID: "api-proxy",
        Service: "api-proxy",
        Kind: "connect-proxy",
        Port: 21000,
        Proxy: { DestinationServiceName: "api" },
      },
      Check: { CheckID: "proxy-alive", ServiceID: "api-proxy", Status: "critical" },
    });
    const { body } = await getJson<Entry[]>(s, "/v1/health/connect/api");
    expect(body.map((e) => `${e.Node.Node}/${e.Service.ID}`)).toEqual(["h6/api-proxy"]);
    expect(body[0]!.Checks.map((c) => c.CheckID).sort()).toEqual(["proxy-alive", "serfHealth"]);
    expect(body[0]!.Service.Kind).toBe("connect-proxy");
    expect((await getJson<Entry[]>(s, "/v1/health/connect/api?passing")).body).toEqual([]);
  });
});
