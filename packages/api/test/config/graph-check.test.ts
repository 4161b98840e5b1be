import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../http/harness.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const put = (body: unknown) => s.json<unknown>("PUT", "/v1/config", body);
const read = (kind: string, name: string) => s.json<unknown>("GET", `/v1/config/${kind}/${name}`);
const del = (kind: string, name: string) => s.json<unknown>("DELETE", `/v1/config/${kind}/${name}`);
const ok = async (p: Promise<{ status: number; body: unknown }>) => {
  const r = await p;
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};

describe("config entries are validated against the discovery chains they affect", () => {
  it("refuses a splitter whose legs have inconsistent protocols, with Consul's message, storing nothing", async () => {
    await ok(put({ Kind: "service-defaults", Name: "mix", Protocol: "http" }));
    await ok(put({ Kind: "service-defaults", Name: "mix-tcp", Protocol: "tcp" }));
    const r = await put({
      Kind: "service-splitter",
      Name: "mix",
      Splits: [
        { Weight: 50, Service: "mix" },
        { Weight: 50, Service: "mix-tcp" },
      ],
    });
    expect(r.status).toBe(400);
    expect(String(r.body)).toContain(
      'discovery chain "mix" uses inconsistent protocols; service "mix-tcp" has "tcp" which is not "http"',
    );
    expect((await read("service-splitter", "mix")).status).toBe(404);
  });

  it("refuses a circular split through two splitters, whichever is written second", async () => {
    for (const name of ["loop-a", "loop-b"])
      await ok(put({ Kind: "service-defaults", Name: name, Protocol: "http" }));
    await ok(put({ Kind: "service-splitter", Name: "loop-a", Splits: [{ Weight: 100, Service: "loop-b" }] }));
    const r = await put({
      Kind: "service-splitter",
      Name: "loop-b",
      Splits: [{ Weight: 100, Service: "loop-a" }],
    });
    expect(r.status).toBe(400);
    expect(String(r.body)).toContain("detected circular reference");
    expect((await read("service-splitter", "loop-b")).status).toBe(404);
  });

  it("refuses a circular resolver redirect through two resolvers", async () => {
    await ok(put({ Kind: "service-resolver", Name: "red-a", Redirect: { Service: "red-b" } }));
    const r = await put({ Kind: "service-resolver", Name: "red-b", Redirect: { Service: "red-a" } });
    expect(r.status).toBe(400);
    expect(String(r.body)).toContain("detected circular resolver redirect");
    expect((await read("service-resolver", "red-b")).status).toBe(404);
  });

  it("a protocol change on a split leg is checked against the chain that splits to it", async () => {
    for (const name of ["leg-root", "leg-one"])
      await ok(put({ Kind: "service-defaults", Name: name, Protocol: "http" }));
    await ok(
      put({
        Kind: "service-splitter",
        Name: "leg-root",
        Splits: [
          { Weight: 50, Service: "leg-root" },
          { Weight: 50, Service: "leg-one" },
        ],
      }),
    );
    const r = await put({ Kind: "service-defaults", Name: "leg-one", Protocol: "grpc" });
    expect(r.status).toBe(400);
    expect(String(r.body)).toContain('discovery chain "leg-root" uses inconsistent protocols');
    await ok(put({ Kind: "service-defaults", Name: "leg-one", Protocol: "http", MaxInboundConnections: 5 }));
    expect((await s.json("GET", "/v1/discovery-chain/leg-root")).status).toBe(200);
  });

  it("refuses deleting the service-defaults a splitter's protocol rests on, as Consul does", async () => {
    await ok(put({ Kind: "service-defaults", Name: "rest", Protocol: "http" }));
    await ok(put({ Kind: "service-splitter", Name: "rest", Splits: [{ Weight: 100, Service: "rest" }] }));
    const r = await del("service-defaults", "rest");
    expect(r.status).toBe(400);
    expect(String(r.body)).toContain(
      'discovery chain "rest" uses a protocol "tcp" that does not permit advanced routing or splitting behavior',
    );
    expect((await read("service-defaults", "rest")).status).toBe(200);
    await ok(del("service-splitter", "rest"));
    await ok(del("service-defaults", "rest"));
  });

  it("refuses a proxy-defaults protocol that breaks an existing chain", async () => {
    await ok(put({ Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } }));
    await ok(put({ Kind: "service-router", Name: "routed", Routes: [] }));
    const r = await put({ Kind: "proxy-defaults", Name: "global", Config: { protocol: "tcp" } });
    expect(r.status).toBe(400);
    expect(String(r.body)).toContain('discovery chain "routed" uses a protocol "tcp"');
    await ok(del("service-router", "routed"));
    await ok(put({ Kind: "proxy-defaults", Name: "global", Config: { protocol: "tcp" } }));
  });
});
