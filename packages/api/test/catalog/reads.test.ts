import { COMMAND_VERSION } from "@cairn/fsm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODE, startServer, type TestServer } from "../http/harness.js";
import { coordAt, expect400, getJson, register } from "./fixtures.js";

let s: TestServer;

type Rec = Record<string, unknown>;

beforeAll(async () => {
  s = await startServer();
  await register(s, { Node: NODE, Address: "127.0.0.1" });
  await register(s, {
    Node: "a",
    Address: "10.0.0.1",
    NodeMeta: { env: "prod", rack: "r1" },
    Service: { ID: "web", Service: "web", Tags: ["v1", "primary"], Port: 80 },
  });
  await register(s, {
    Node: "a",
    Address: "10.0.0.1",
    NodeMeta: { env: "prod", rack: "r1" },
    Service: { Service: "db", Port: 5432 },
  });
  await register(s, {
    Node: "b",
    Address: "10.0.0.2",
    NodeMeta: { env: "prod", rack: "r2" },
    Service: { ID: "web", Service: "web", Tags: ["v1"], Port: 81 },
  });
  await register(s, {
    Node: "b",
    Address: "10.0.0.2",
    NodeMeta: { env: "prod", rack: "r2" },
    Service: {
      ID: "web-sidecar-proxy",
      Service: "web-sidecar-proxy",
      Kind: "connect-proxy",
      Port: 21000,
      Proxy: { DestinationServiceName: "web", DestinationServiceID: "web", LocalServicePort: 81 },
    },
  });
  await register(s, {
    Node: "c",
    Address: "10.0.0.3",
    NodeMeta: { env: "dev" },
    Service: { ID: "web", Service: "web", Tags: ["v2"], Port: 82, Connect: { Native: true } },
  });
  // Coordinates straight through the write path (the update endpoint's batching is tested on its own).
  await s.backend.apply({
    v: COMMAND_VERSION,
    type: "coordinate.batch-update",
    updates: [
      { Node: NODE, Coord: coordAt(0) },
      { Node: "a", Coord: coordAt(0.3) },
      { Node: "b", Coord: coordAt(0.1) },
      { Node: "c", Coord: coordAt(0.2) },
    ],
  });
});
afterAll(() => s.close());

const names = (list: Rec[], key = "Node") => list.map((r) => r[key]);

describe("/catalog/nodes", () => {
  it("lists every node in name order, in Consul's node shape", async () => {
    const { body, index } = await getJson<Rec[]>(s, "/v1/catalog/nodes");
    expect(names(body)).toEqual(["a", NODE, "b", "c"]);
    expect(Object.keys(body[0]!)).toEqual([
      "ID",
      "Node",
      "Address",
      "Datacenter",
      "TaggedAddresses",
      "Meta",
      "CreateIndex",
      "ModifyIndex",
    ]);
    expect(index).toBeGreaterThan(0);
  });

  it("node-meta repeats and all must match", async () => {
    expect(names((await getJson<Rec[]>(s, "/v1/catalog/nodes?node-meta=env:prod")).body)).toEqual(["a", "b"]);
    expect(
      names((await getJson<Rec[]>(s, "/v1/catalog/nodes?node-meta=env:prod&node-meta=rack:r2")).body),
    ).toEqual(["b"]);
    expect((await getJson<Rec[]>(s, "/v1/catalog/nodes?node-meta=env:none")).body).toEqual([]);
  });

  it("near sorts by round-trip estimate from the agent's node or a named node", async () => {
    expect(names((await getJson<Rec[]>(s, "/v1/catalog/nodes?near=_agent")).body)).toEqual([
      NODE,
      "b",
      "c",
      "a",
    ]);
    expect(names((await getJson<Rec[]>(s, "/v1/catalog/nodes?near=a")).body)).toEqual(["a", "c", "b", NODE]);
    // An origin without a coordinate leaves the order as it is.
    expect(names((await getJson<Rec[]>(s, "/v1/catalog/nodes?near=nobody")).body)).toEqual([
      "a",
      NODE,
      "b",
      "c",
    ]);
  });

  it("filter with an allowed selector and operator", async () => {
    const q = encodeURIComponent('Meta.env == "prod" and Address matches "^10[.]0[.]0[.][12]$"');
    expect(names((await getJson<Rec[]>(s, `/v1/catalog/nodes?filter=${q}`)).body)).toEqual(["a", "b"]);
    const inMeta = encodeURIComponent("rack in Meta");
    expect(names((await getJson<Rec[]>(s, `/v1/catalog/nodes?filter=${inMeta}`)).body)).toEqual(["a", "b"]);
  });

  it("a refused selector, a refused operator and a malformed expression are 400s naming them", async () => {
    await expect400(
      await s.req("GET", `/v1/catalog/nodes?filter=${encodeURIComponent("Service == web")}`),
      /Selector "Service" is not valid/,
    );
    await expect400(
      await s.req("GET", `/v1/catalog/nodes?filter=${encodeURIComponent("Address is empty")}`),
      /Invalid match operator "Is Empty" for selector "Address"/,
    );
    await expect400(
      await s.req("GET", `/v1/catalog/nodes?filter=${encodeURIComponent("Node ==")}`),
      /^Failed to create boolean expression evaluator/,
    );
  });
});

describe("/catalog/services", () => {
  it("maps every service name to all of its tags", async () => {
    expect((await getJson<Rec>(s, "/v1/catalog/services")).body).toEqual({
      db: [],
      web: ["primary", "v1", "v2"],
      "web-sidecar-proxy": [],
    });
  });

  it("node-meta keeps services on matching nodes", async () => {
    expect((await getJson<Rec>(s, "/v1/catalog/services?node-meta=env:dev")).body).toEqual({ web: ["v2"] });
    expect((await getJson<Rec>(s, "/v1/catalog/services?node-meta=rack:r1")).body).toEqual({
      db: [],
      web: ["primary", "v1"],
    });
  });
});

describe("/catalog/service/:service", () => {
  it("lists the instances, one per node", async () => {
    const { body } = await getJson<Rec[]>(s, "/v1/catalog/service/web");
    expect(names(body)).toEqual(["a", "b", "c"]);
    expect(body[0]).toMatchObject({
      ServiceID: "web",
      ServicePort: 80,
      NodeMeta: { env: "prod", rack: "r1" },
    });
  });

  it("tag repeats and every tag must be present", async () => {
    expect(names((await getJson<Rec[]>(s, "/v1/catalog/service/web?tag=v1")).body)).toEqual(["a", "b"]);
    expect(names((await getJson<Rec[]>(s, "/v1/catalog/service/web?tag=v1&tag=primary")).body)).toEqual([
      "a",
    ]);
    expect((await getJson<Rec[]>(s, "/v1/catalog/service/web?tag=v1&tag=v2")).body).toEqual([]);
    // Consul's state store compares tags case-insensitively.
    expect(names((await getJson<Rec[]>(s, "/v1/catalog/service/web?tag=V1&tag=PRIMARY")).body)).toEqual([
      "a",
    ]);
  });

  it("node-meta, near and filter", async () => {
    expect(names((await getJson<Rec[]>(s, "/v1/catalog/service/web?node-meta=env:prod")).body)).toEqual([
      "a",
      "b",
    ]);
    expect(names((await getJson<Rec[]>(s, "/v1/catalog/service/web?near=_agent")).body)).toEqual([
      "b",
      "c",
      "a",
    ]);
    const q = encodeURIComponent("ServicePort == 81 or ServiceTags contains primary");
    expect(names((await getJson<Rec[]>(s, `/v1/catalog/service/web?filter=${q}`)).body)).toEqual(["a", "b"]);
    await expect400(
      await s.req("GET", `/v1/catalog/service/web?filter=${encodeURIComponent('ServicePort matches "8"')}`),
      /Invalid match operator "Matches" for selector "ServicePort"/,
    );
    await expect400(
      await s.req("GET", `/v1/catalog/service/web?filter=${encodeURIComponent("Meta.x == y")}`),
      /Selector "Meta" is not valid/,
    );
  });

  it("an unknown service is an empty list; a missing name is a 400", async () => {
    expect((await getJson<Rec[]>(s, "/v1/catalog/service/nothing")).body).toEqual([]);
    await expect400(await s.req("GET", "/v1/catalog/service/"), "Missing service name");
  });
});

describe("/catalog/connect/:service", () => {
  it("lists proxies for the service and Connect-native instances", async () => {
    const { body } = await getJson<Rec[]>(s, "/v1/catalog/connect/web");
    expect(body.map((r) => `${r.Node}/${r.ServiceID}`).sort()).toEqual(["b/web-sidecar-proxy", "c/web"]);
    const proxy = body.find((r) => r.ServiceKind === "connect-proxy")!;
    expect(proxy.ServiceProxy).toEqual({
      DestinationServiceName: "web",
      DestinationServiceID: "web",
      LocalServicePort: 81,
      MeshGateway: {},
      Expose: {},
    });
    expect(body.find((r) => r.Node === "c")!.ServiceConnect).toEqual({ Native: true });
  });

  it("takes filter like a service lookup", async () => {
    const q = encodeURIComponent('ServiceKind == "connect-proxy"');
    expect(names((await getJson<Rec[]>(s, `/v1/catalog/connect/web?filter=${q}`)).body)).toEqual(["b"]);
  });
});

describe("/catalog/node/:node", () => {
  it("answers the node and its services by ID in Consul's NodeService shape", async () => {
    const res = await s.req("GET", "/v1/catalog/node/a");
    const text = await res.text();
    const body = JSON.parse(text) as { Node: Rec; Services: Record<string, Rec> };
    expect(Object.keys(body.Services)).toEqual(["db", "web"]);
    expect(Object.keys(body.Services.web!)).toEqual([
      "ID",
      "Service",
      "Tags",
      "Address",
      "Meta",
      "Port",
      "Weights",
      "EnableTagOverride",
      "Proxy",
      "Connect",
      "CreateIndex",
      "ModifyIndex",
    ]);
  });

  it("filters each service; a refused selector is a 400", async () => {
    const q = encodeURIComponent("Port > 1");
    await expect400(
      await s.req("GET", `/v1/catalog/node/a?filter=${q}`),
      /Failed to create boolean expression/,
    );
    const ok = encodeURIComponent('Service == "db"');
    expect(
      Object.keys((await getJson<{ Services: Rec }>(s, `/v1/catalog/node/a?filter=${ok}`)).body.Services),
    ).toEqual(["db"]);
    await expect400(
      await s.req("GET", `/v1/catalog/node/a?filter=${encodeURIComponent("ServiceName == db")}`),
      /Selector "ServiceName" is not valid/,
    );
  });

  it("a missing node name is a 400", async () => {
    await expect400(await s.req("GET", "/v1/catalog/node/"), "Missing node name");
  });
});

describe("/catalog/node-services/:node (Consul 1.7+)", () => {
  it("answers the node and its services as a list sorted by ID, filtered as /catalog/node", async () => {
    const body = (await getJson<{ Node: Rec; Services: Rec[] }>(s, "/v1/catalog/node-services/a")).body;
    expect(body.Node).toMatchObject({ Node: "a" });
    expect(Array.isArray(body.Services)).toBe(true);
    expect(body.Services.map((x) => x.ID)).toEqual(["db", "web"]);
    expect(Object.keys(body.Services[1]!)).toEqual(
      Object.keys(
        (await getJson<{ Services: Record<string, Rec> }>(s, "/v1/catalog/node/a")).body.Services.web!,
      ),
    );
    const ok = encodeURIComponent('Service == "db"');
    const filtered = (await getJson<{ Services: Rec[] }>(s, `/v1/catalog/node-services/a?filter=${ok}`)).body;
    expect(filtered.Services.map((x) => x.ID)).toEqual(["db"]);
    await expect400(
      await s.req("GET", `/v1/catalog/node-services/a?filter=${encodeURIComponent("Port > 1")}`),
      /Failed to create boolean expression/,
    );
  });

  it("an unknown node is {Node: null, Services: null}; a missing name is a 400", async () => {
    expect((await getJson<unknown>(s, "/v1/catalog/node-services/nobody")).body).toEqual({
      Node: null,
      Services: null,
    });
    await expect400(await s.req("GET", "/v1/catalog/node-services/"), "Missing node name");
  });
});

describe("wrong methods", () => {
  it("answers 405 with Allow", async () => {
    const res = await s.req("POST", "/v1/catalog/nodes");
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("OPTIONS,GET");
    expect((await s.req("GET", "/v1/catalog/register")).status).toBe(405);
  });
});
