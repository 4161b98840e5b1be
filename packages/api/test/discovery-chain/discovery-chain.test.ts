import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Authorizer } from "../../src/authorizer.js";
import { trustDomainFor } from "../../src/query/trust-domain.js";
import { expect400 } from "../catalog/fixtures.js";
import { startServer, type TestServer } from "../http/harness.js";

interface Chain {
  ServiceName: string;
  Namespace: string;
  Datacenter: string;
  CustomizationHash?: string;
  Protocol: string;
  StartNode: string;
  Nodes: Record<
    string,
    { Type: string; Name: string; Resolver?: Record<string, unknown>; Splits?: unknown[] }
  >;
  Targets: Record<string, { ID: string; SNI: string; Name: string; MeshGateway: { Mode?: string } }>;
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const put = async (entry: Record<string, unknown>) => {
  const res = await s.req("PUT", "/v1/config", JSON.stringify(entry));
  expect(res.status, await res.text()).toBe(200);
};
const chain = (path: string, body?: unknown) =>
  s.json<{ Chain: Chain }>(body === undefined ? "GET" : "POST", `/v1/discovery-chain/${path}`, body);

describe("GET /v1/discovery-chain/:service", () => {
  it("a service without entries compiles to its default resolver; SNI uses the cluster's trust domain", async () => {
    const r = await chain("plain");
    expect(r.status).toBe(200);
    const domain = trustDomainFor("dc1");
    expect(domain).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.consul$/);
    expect(r.body.Chain).toEqual({
      ServiceName: "plain",
      Namespace: "default",
      Datacenter: "dc1",
      Protocol: "tcp",
      StartNode: "resolver:plain.default.dc1",
      Nodes: {
        "resolver:plain.default.dc1": {
          Type: "resolver",
          Name: "plain.default.dc1",
          Resolver: { Default: true, ConnectTimeout: "5s", Target: "plain.default.dc1" },
        },
      },
      Targets: {
        "plain.default.dc1": {
          ID: "plain.default.dc1",
          Service: "plain",
          Namespace: "default",
          Datacenter: "dc1",
          MeshGateway: {},
          Subset: {},
          SNI: `plain.default.dc1.internal.${domain}`,
          Name: `plain.default.dc1.internal.${domain}`,
        },
      },
    });
    expect(Number(r.res.headers.get("X-Consul-Index"))).toBeGreaterThan(0);
  });

  it("entries written through /v1/config shape the chain; compile-dc moves it", async () => {
    await put({
      Kind: "service-resolver",
      Name: "web",
      ConnectTimeout: "15s",
      Failover: { "*": { Datacenters: ["dc3", "dc4"] } },
    });
    const r = await chain("web");
    expect(r.body.Chain.Nodes["resolver:web.default.dc1"]?.Resolver).toEqual({
      ConnectTimeout: "15s",
      Target: "web.default.dc1",
      Failover: { Targets: ["web.default.dc3", "web.default.dc4"] },
    });
    const moved = await chain("web?compile-dc=dc2");
    expect(moved.body.Chain).toMatchObject({ Datacenter: "dc2", StartNode: "resolver:web.default.dc2" });
  });

  it("splitters with subsets over http (snake_case entries accepted by /v1/config)", async () => {
    await put({ Kind: "service-defaults", Name: "api", Protocol: "http" });
    await put({
      kind: "service-resolver",
      name: "api",
      default_subset: "v1",
      subsets: { v1: { filter: "Service.Meta.version == v1" }, v2: { filter: "Service.Meta.version == v2" } },
    });
    await put({
      Kind: "service-splitter",
      Name: "api",
      Splits: [
        { Weight: 90, ServiceSubset: "v1" },
        { Weight: 10, ServiceSubset: "v2" },
      ],
    });
    const c = (await chain("api")).body.Chain;
    expect(c.Protocol).toBe("http");
    expect(c.StartNode).toBe("splitter:api");
    expect(c.Nodes["splitter:api"]?.Splits).toEqual([
      { Weight: 90, NextNode: "resolver:v1.api.default.dc1" },
      { Weight: 10, NextNode: "resolver:v2.api.default.dc1" },
    ]);
  });
});

describe("POST /v1/discovery-chain/:service (overrides)", () => {
  it("overrides change timeout, protocol and mesh gateway mode and add the hash (snake_case too)", async () => {
    await put({ Kind: "service-resolver", Name: "red", Redirect: { Datacenter: "dc2" } });
    const body = {
      OverrideConnectTimeout: "7s",
      OverrideProtocol: "grpc",
      OverrideMeshGateway: { Mode: "remote" },
    };
    const r = await chain("red", body);
    expect(r.status).toBe(200);
    expect(r.body.Chain).toMatchObject({
      CustomizationHash: "b94f529a",
      Protocol: "grpc",
      StartNode: "resolver:red.default.dc2",
    });
    expect(r.body.Chain.Targets["red.default.dc2"]?.MeshGateway).toEqual({ Mode: "remote" });
    const snake = await chain("red", {
      override_connect_timeout: "7s",
      override_protocol: "grpc",
      override_mesh_gateway: { mode: "remote" },
    });
    expect(snake.body.Chain.CustomizationHash).toBe("b94f529a");
  });

  it("an empty POST body is no overrides", async () => {
    const r = await s.req("POST", "/v1/discovery-chain/red");
    expect(r.status).toBe(200);
  });

  it("bad overrides are 400s with Consul's reasons", async () => {
    await expect400(
      await s.req(
        "POST",
        "/v1/discovery-chain/red",
        JSON.stringify({ OverrideMeshGateway: { Mode: "sideways" } }),
      ),
      "Invalid OverrideMeshGateway.Mode parameter",
    );
    await expect400(
      await s.req("POST", "/v1/discovery-chain/red", JSON.stringify({ OverrideConnectTimeout: "soon" })),
      /^Request decoding failed: /,
    );
    await expect400(await s.req("POST", "/v1/discovery-chain/red", "{"), /^Request decoding failed: /);
  });
});

describe("discovery chain errors and blocking", () => {
  it("a chain whose services disagree on protocol is a 400 with Consul's message", async () => {
    await put({ Kind: "service-defaults", Name: "mixed", Protocol: "http" });
    await put({ Kind: "service-defaults", Name: "mixed-grpc", Protocol: "grpc" });
    // Such a splitter is refused at write, as Consul does, so the chain never gets to compile it.
    const splitter = {
      Kind: "service-splitter",
      Name: "mixed",
      Splits: [{ Weight: 50 }, { Weight: 50, Service: "mixed-grpc" }],
    };
    await expect400(
      await s.req("PUT", "/v1/config", JSON.stringify(splitter)),
      'discovery chain "mixed" uses inconsistent protocols; service "mixed-grpc" has "grpc" which is not "http"',
    );
    expect((await chain("mixed")).status).toBe(200);
  });

  it("missing chain name", async () => {
    await expect400(await s.req("GET", "/v1/discovery-chain/"), "Missing chain name");
  });

  it("a blocking read wakes when an entry the chain consulted changes", async () => {
    const first = await chain("blocky");
    const index = Number(first.res.headers.get("X-Consul-Index"));
    const pending = chain(`blocky?index=${index}&wait=5s`);
    await new Promise((r) => setTimeout(r, 50));
    await put({ Kind: "service-resolver", Name: "blocky", ConnectTimeout: "9s" });
    const woken = await pending;
    expect(Number(woken.res.headers.get("X-Consul-Index"))).toBeGreaterThan(index);
    expect(woken.body.Chain.Nodes["resolver:blocky.default.dc1"]?.Resolver).toMatchObject({
      ConnectTimeout: "9s",
    });
  });

  it("consistency modes are accepted", async () => {
    expect((await chain("plain?stale")).status).toBe(200);
    expect((await chain("plain?consistent")).status).toBe(200);
    await expect400(
      await s.req("GET", "/v1/discovery-chain/plain?stale&consistent"),
      "Cannot specify ?stale with ?consistent, conflicting semantics.",
    );
  });
});

describe("discovery chain ACL", () => {
  it("needs service:read on the chain's service", async () => {
    const denyWeb: Authorizer = {
      authorize: (_t, _ns, type, name) => (type === "service" && name === "web" ? "deny" : "allow"),
    };
    const acl = await startServer({}, { authorizer: denyWeb });
    try {
      expect((await acl.req("GET", "/v1/discovery-chain/web")).status).toBe(403);
      expect((await acl.req("GET", "/v1/discovery-chain/api")).status).toBe(200);
    } finally {
      await acl.close();
    }
  });
});
