import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../http/harness.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const put = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  s.req("PUT", path, typeof body === "string" ? body : JSON.stringify(body), headers);
const register = (body: unknown, headers?: Record<string, string>) =>
  put("/v1/catalog/register", body, headers);
const deregister = (body: unknown) => put("/v1/catalog/deregister", body);
const get = async <T>(path: string) => (await s.json<T>("GET", path)).body;

interface NodeServices {
  Node: Record<string, unknown>;
  Services: Record<string, Record<string, unknown>>;
}
type Check = Record<string, unknown>;

async function expect400(res: Response, reason: string | RegExp): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(400);
  expect(text).not.toContain("\n");
  if (typeof reason === "string") expect(text).toBe(reason);
  else expect(text).toMatch(reason);
}

describe("catalog register", () => {
  it("registers a node, a service and its check; answers true", async () => {
    const res = await register({
      ID: "40e4a748-2192-161a-0510-9bf59fe950b5",
      Node: "web1",
      Address: "10.0.0.1",
      TaggedAddresses: { wan: "198.18.0.1", lan: "10.0.0.1" },
      NodeMeta: { env: "prod", rack: "r1" },
      Service: {
        ID: "web-1",
        Service: "web",
        Tags: ["v1", "primary"],
        Address: "10.0.0.11",
        TaggedAddresses: { wan: { Address: "198.18.0.11", Port: 80 } },
        Meta: { version: "1" },
        Port: 8080,
      },
      Check: { CheckID: "web-alive", Name: "web alive", Status: "passing", ServiceID: "web-1" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toBe(true);

    const node = await get<NodeServices>("/v1/catalog/node/web1");
    expect(node.Node).toMatchObject({
      ID: "40e4a748-2192-161a-0510-9bf59fe950b5",
      Node: "web1",
      Address: "10.0.0.1",
      Datacenter: "dc1",
      TaggedAddresses: { lan: "10.0.0.1", wan: "198.18.0.1" },
      Meta: { env: "prod", rack: "r1" },
    });
    expect(Object.keys(node.Services)).toEqual(["web-1"]);
    const checks = await get<Check[]>("/v1/health/node/web1");
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({
      CheckID: "web-alive",
      ServiceID: "web-1",
      ServiceName: "web",
      Status: "passing",
    });
    expect(checks[0]!.ServiceTags).toEqual(["v1", "primary"]);
  });

  it("writes the service instance exactly in Consul's field order, with default weights and proxy shape", async () => {
    const res = await s.req("GET", "/v1/catalog/service/web");
    const text = await res.text();
    const parsed = JSON.parse(text) as Record<string, unknown>[];
    expect(Object.keys(parsed[0]!)).toEqual([
      "ID",
      "Node",
      "Address",
      "Datacenter",
      "TaggedAddresses",
      "NodeMeta",
      "ServiceKind",
      "ServiceID",
      "ServiceName",
      "ServiceTags",
      "ServiceAddress",
      "ServiceTaggedAddresses",
      "ServiceWeights",
      "ServiceMeta",
      "ServicePort",
      "ServiceEnableTagOverride",
      "ServiceProxy",
      "ServiceConnect",
      "CreateIndex",
      "ModifyIndex",
    ]);
    expect(text).toContain('"TaggedAddresses":{"lan":"10.0.0.1","wan":"198.18.0.1"}');
    expect(text).toContain('"ServiceWeights":{"Passing":1,"Warning":1}');
    expect(text).toContain('"ServiceProxy":{"MeshGateway":{},"Expose":{}},"ServiceConnect":{}');
    expect(text).toContain('"ServiceTaggedAddresses":{"wan":{"Address":"198.18.0.11","Port":80}}');
    expect(text).not.toContain("Namespace");
  });

  it("matches body fields case-insensitively", async () => {
    expect(
      (await register({ node: "lower", address: "10.0.0.9", service: { service: "lc", port: 1 } })).status,
    ).toBe(200);
    expect((await get<Record<string, unknown>[]>("/v1/catalog/service/lc"))[0]).toMatchObject({
      Node: "lower",
      ServicePort: 1,
    });
  });

  it("registers several checks with Checks, and Check together with Checks", async () => {
    const res = await register({
      Node: "multi",
      Address: "10.0.0.2",
      Check: { Name: "one", Status: "passing" },
      Checks: [
        { CheckID: "two", Name: "Two", Status: "warning" },
        { CheckID: "three", Name: "Three" },
      ],
    });
    expect(res.status).toBe(200);
    const checks = await get<Check[]>("/v1/health/node/multi");
    const byId = Object.fromEntries(checks.map((c) => [c.CheckID, c.Status]));
    // CheckID defaults to Name; a check without a status starts critical, as in Consul.
    expect(byId).toEqual({ one: "passing", two: "warning", three: "critical" });
  });

  it("keeps the node as it is with SkipNodeUpdate, and still creates a missing node", async () => {
    await register({ Node: "skip", Address: "10.0.0.3", NodeMeta: { keep: "me" } });
    const res = await register({
      Node: "skip",
      Address: "10.9.9.9",
      NodeMeta: { other: "x" },
      SkipNodeUpdate: true,
      Service: { Service: "skipper" },
    });
    expect(res.status).toBe(200);
    const node = await get<NodeServices>("/v1/catalog/node/skip");
    expect(node.Node).toMatchObject({ Address: "10.0.0.3", Meta: { keep: "me" } });
    expect(Object.keys(node.Services)).toEqual(["skipper"]);

    expect((await register({ Node: "fresh", Address: "10.0.0.4", SkipNodeUpdate: true })).status).toBe(200);
    expect((await get<NodeServices>("/v1/catalog/node/fresh")).Node.Address).toBe("10.0.0.4");
  });

  it("stores a check Definition with Go durations and writes them back in Consul's form", async () => {
    const res = await register({
      Node: "defs",
      Address: "10.0.0.5",
      Check: {
        CheckID: "http",
        Name: "http",
        Definition: { HTTP: "http://localhost:80/health", Interval: "10s", Timeout: "1500ms", TTL: "30s" },
      },
    });
    expect(res.status).toBe(200);
    const text = await (await s.req("GET", "/v1/health/node/defs")).text();
    expect(text).toContain(
      '"Definition":{"Interval":"10s","Timeout":"1.5s","HTTP":"http://localhost:80/health","TTL":30000000000}',
    );
  });
});

describe("catalog register: bad input is a 400 with one line, and nothing is stored", () => {
  const nodes = async () => (await get<{ Node: string }[]>("/v1/catalog/nodes")).map((n) => n.Node);

  it("missing Node or Address", async () => {
    await expect400(await register({ Address: "10.0.0.1" }), "Must provide node");
    await expect400(await register({ Node: "noaddr" }), "Must provide address");
    expect(await nodes()).not.toContain("noaddr");
  });

  it("a check whose ServiceID is not on the node", async () => {
    await expect400(
      await register({ Node: "orphan", Address: "10.0.1.1", Check: { CheckID: "c", ServiceID: "nope" } }),
      "Missing service registration",
    );
    expect(await nodes()).not.toContain("orphan");
  });

  it("an unknown check status", async () => {
    await expect400(
      await register({ Node: "badstatus", Address: "10.0.1.2", Check: { CheckID: "c", Status: "fine" } }),
      /Invalid check status "fine"/,
    );
    expect(await nodes()).not.toContain("badstatus");
  });

  it("an Interval that is not a duration", async () => {
    await expect400(
      await register({
        Node: "badinterval",
        Address: "10.0.1.3",
        Check: { CheckID: "c", Definition: { TCP: "localhost:1", Interval: "often" } },
      }),
      /^Request decode failed: .*Interval.*invalid duration "often"/,
    );
    expect(await nodes()).not.toContain("badinterval");
  });

  it("malformed JSON, a bad node ID, a service ID without a name, an any-address service", async () => {
    await expect400(await register("{"), /^Request decode failed/);
    await expect400(await register({ Node: "n", Address: "a", ID: "not-a-uuid" }), /^Bad node ID/);
    await expect400(
      await register({ Node: "n", Address: "a", Service: { ID: "x" } }),
      "Must provide service name with ID",
    );
    await expect400(
      await register({ Node: "n", Address: "a", Service: { Service: "x", Address: "0.0.0.0" } }),
      "Invalid service address",
    );
    await expect400(
      await register({ Node: "n", Address: "a", Service: { Service: "p", Kind: "connect-proxy", Port: 1 } }),
      "Proxy.DestinationServiceName must be non-empty for Connect proxy services",
    );
    expect(await nodes()).not.toContain("n");
  });

  it("names holding a NUL character (they would alias other records' keys)", async () => {
    await expect400(
      await register({ Node: "a\u0000b", Address: "a" }),
      "Invalid node name: must not contain a NUL character",
    );
    await expect400(
      await register({ Node: "n", Address: "a", Service: { Service: "s", ID: "x\u0000y" } }),
      "Invalid service ID: must not contain a NUL character",
    );
    await expect400(
      await register({ Node: "n", Address: "a", Check: { CheckID: "c\u0000" } }),
      "Invalid check ID: must not contain a NUL character",
    );
    expect(await nodes()).not.toContain("n");
  });

  it("namespaces that disagree between the request and the body", async () => {
    await expect400(
      await put("/v1/catalog/register?ns=team-a", {
        Node: "ns1",
        Address: "a",
        Service: { Service: "s", Namespace: "team-b" },
      }),
      /Namespace "team-b" in Service does not match namespace "team-a"/,
    );
    await expect400(
      await register(
        { Node: "ns1", Address: "a", Check: { CheckID: "c", Namespace: "team-c" } },
        { "X-Consul-Namespace": "team-a" },
      ),
      /Namespace "team-c" in Checks\[0\] does not match/,
    );
    await expect400(
      await register({
        Node: "ns1",
        Address: "a",
        Service: { Service: "s", Namespace: "team-a" },
        Check: { CheckID: "c", Namespace: "team-b" },
      }),
      /does not match namespace "team-a" of Service/,
    );
    expect(await nodes()).not.toContain("ns1");
  });

  it("namespaces that agree place the service in that namespace", async () => {
    expect((await s.json("PUT", "/v1/namespace", { Name: "team-a" })).status).toBe(200);
    const res = await put("/v1/catalog/register?ns=team-a", {
      Node: "ns2",
      Address: "10.0.2.1",
      Service: { Service: "nsvc", Namespace: "team-a" },
    });
    expect(res.status).toBe(200);
    expect(await get<unknown[]>("/v1/catalog/service/nsvc")).toEqual([]);
    const inNs = await get<Record<string, unknown>[]>("/v1/catalog/service/nsvc?ns=team-a");
    expect(inNs).toHaveLength(1);
    expect(inNs[0]!.Namespace).toBe("team-a");
  });
});

describe("catalog deregister", () => {
  beforeAll(async () => {
    const res = await register({
      Node: "gone",
      Address: "10.0.3.1",
      Service: { ID: "api-1", Service: "api" },
      Checks: [
        { CheckID: "api-check", ServiceID: "api-1", Status: "passing" },
        { CheckID: "node-check", Status: "passing" },
        { CheckID: "other-check", Status: "passing" },
      ],
    });
    expect(res.status).toBe(200);
    expect(
      (await register({ Node: "gone", Address: "10.0.3.1", Service: { ID: "db/primary", Service: "db" } }))
        .status,
    ).toBe(200);
  });
  const checkIds = async () => (await get<Check[]>("/v1/health/node/gone")).map((c) => c.CheckID).sort();

  it("one check", async () => {
    expect((await deregister({ Node: "gone", CheckID: "other-check" })).status).toBe(200);
    expect(await checkIds()).toEqual(["api-check", "node-check"]);
  });

  it("a service takes its checks with it; service IDs may contain a slash", async () => {
    expect((await deregister({ Node: "gone", ServiceID: "api-1" })).status).toBe(200);
    expect(await checkIds()).toEqual(["node-check"]);
    expect((await deregister({ Node: "gone", ServiceID: "db/primary" })).status).toBe(200);
    expect(Object.keys((await get<NodeServices>("/v1/catalog/node/gone")).Services)).toEqual([]);
  });

  it("the node takes everything on it; an unknown node then reads as null", async () => {
    expect((await deregister({ Node: "gone" })).status).toBe(200);
    expect(await checkIds()).toEqual([]);
    const res = await s.req("GET", "/v1/catalog/node/gone");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("null");
  });

  it("needs a Node", async () => {
    await expect400(await deregister({ ServiceID: "x" }), "Must provide node");
  });
});

describe("catalog datacenters", () => {
  it("lists this datacenter", async () => {
    expect(await get<string[]>("/v1/catalog/datacenters")).toEqual(["dc1"]);
  });
});

describe("encoded records follow the store", () => {
  it("a service lookup shows its node's new address after the node alone changed", async () => {
    await register({ Node: "moving", Address: "10.0.5.1", Service: { Service: "mover" } });
    expect((await get<Record<string, unknown>[]>("/v1/catalog/service/mover"))[0]!.Address).toBe("10.0.5.1");
    await register({ Node: "moving", Address: "10.0.5.2" });
    expect((await get<Record<string, unknown>[]>("/v1/catalog/service/mover"))[0]!.Address).toBe("10.0.5.2");
    const health = await get<{ Node: { Address: string } }[]>("/v1/health/service/mover");
    expect(health[0]!.Node.Address).toBe("10.0.5.2");
  });
});
