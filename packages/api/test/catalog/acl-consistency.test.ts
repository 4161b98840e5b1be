import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Authorizer } from "../../src/authorizer.js";
import { startServer, type TestServer } from "../http/harness.js";
import { getJson, register } from "./fixtures.js";

/** Token "ops" may do anything; everyone else may not see or write node "hidden" nor service "secret". */
const authorizer: Authorizer = {
  authorize(token, _ns, type, name) {
    if (token === "ops") return "allow";
    if (type === "node" && name === "hidden") return "deny";
    if (type === "service" && name === "secret") return "deny";
    return "allow";
  },
};

let s: TestServer;
type Rec = Record<string, unknown>;

beforeAll(async () => {
  s = await startServer({}, { authorizer });
  await register(
    s,
    { Node: "open", Address: "10.4.0.1", Service: { Service: "web" } },
    "/v1/catalog/register",
  );
  await register(
    s,
    { Node: "open", Address: "10.4.0.1", Service: { Service: "secret" } },
    "/v1/catalog/register?token=ops",
  );
  await register(
    s,
    { Node: "hidden", Address: "10.4.0.2", Service: { Service: "web" } },
    "/v1/catalog/register?token=ops",
  );
});
afterAll(() => s.close());

describe("ACL seam on catalog endpoints", () => {
  it("writes the token may not do are 403 and store nothing", async () => {
    const res = await s.req(
      "PUT",
      "/v1/catalog/register",
      JSON.stringify({ Node: "hidden", Address: "10.9.9.9" }),
    );
    expect(res.status).toBe(403);
    expect(await res.text()).toBe("Permission denied");
    const svc = { Node: "open", Address: "10.4.0.1", Service: { Service: "secret", Port: 1 } };
    expect((await s.req("PUT", "/v1/catalog/register", JSON.stringify(svc))).status).toBe(403);
    expect((await s.req("PUT", "/v1/catalog/deregister", JSON.stringify({ Node: "hidden" }))).status).toBe(
      403,
    );
    const all = (await getJson<Rec[]>(s, "/v1/catalog/nodes?token=ops")).body;
    expect(all.find((n) => n.Node === "hidden")!.Address).toBe("10.4.0.2");
  });

  it("list reads leave out nodes and services the token may not read", async () => {
    expect((await getJson<Rec[]>(s, "/v1/catalog/nodes")).body.map((n) => n.Node)).toEqual(["open"]);
    expect((await getJson<Rec>(s, "/v1/catalog/services")).body).toEqual({ web: [] });
    expect((await getJson<Rec[]>(s, "/v1/catalog/service/web")).body.map((n) => n.Node)).toEqual(["open"]);
    expect((await getJson<Rec[]>(s, "/v1/health/service/web?token=ops")).body).toHaveLength(2);
    expect((await getJson<Rec[]>(s, "/v1/health/service/web")).body).toHaveLength(1);
    // Answers are memoized per index: again, in the other order, each token still gets its own.
    expect((await getJson<Rec[]>(s, "/v1/health/service/web")).body).toHaveLength(1);
    expect((await getJson<Rec[]>(s, "/v1/health/service/web?token=ops")).body).toHaveLength(2);
    expect((await getJson<Rec[]>(s, "/v1/catalog/service/web?token=ops")).body).toHaveLength(2);
    expect(Object.keys((await getJson<{ Services: Rec }>(s, "/v1/catalog/node/open")).body.Services)).toEqual(
      ["web"],
    );
    expect((await getJson<unknown>(s, "/v1/catalog/node/hidden")).body).toBeNull();
  });
});

describe("consistency modes on catalog reads", () => {
  it("default, stale and consistent all answer with the index and leader headers", async () => {
    for (const mode of ["", "?stale", "?consistent"]) {
      const { res, index } = await getJson(s, `/v1/catalog/nodes${mode}`);
      expect(index).toBeGreaterThan(0);
      expect(res.headers.get("X-Consul-KnownLeader")).toBe("true");
      expect(res.headers.get("X-Service-LastContact")).toBe("0");
    }
    const both = await s.req("GET", "/v1/health/service/web?stale&consistent");
    expect(both.status).toBe(400);
  });
});

describe("register never answers 500 to any body", () => {
  const scalar = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.double(),
  );
  const fieldValue = fc.oneof(
    scalar,
    fc.array(scalar, { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), scalar),
  );
  const check = fc.record(
    {
      CheckID: fieldValue,
      Status: fc.oneof(fc.constantFrom("passing", "warning", "critical", "bad"), fieldValue),
      ServiceID: fieldValue,
      Definition: fc.oneof(fieldValue, fc.record({ Interval: fieldValue, TTL: fieldValue })),
    },
    { requiredKeys: [] },
  );
  const body = fc.record(
    {
      Node: fc.oneof(fc.constantFrom("open", "fz"), fieldValue),
      Address: fieldValue,
      ID: fieldValue,
      NodeMeta: fieldValue,
      TaggedAddresses: fieldValue,
      SkipNodeUpdate: fieldValue,
      Service: fc.oneof(
        fieldValue,
        fc.record(
          {
            Service: fieldValue,
            ID: fieldValue,
            Port: fieldValue,
            Kind: fieldValue,
            Proxy: fieldValue,
            Weights: fieldValue,
            TaggedAddresses: fieldValue,
          },
          { requiredKeys: [] },
        ),
      ),
      Check: fc.oneof(fieldValue, check),
      Checks: fc.oneof(fieldValue, fc.array(check, { maxLength: 2 })),
    },
    { requiredKeys: [] },
  );

  it("random registration bodies answer 200, 400 or 403", async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await s.req("PUT", "/v1/catalog/register?token=ops", JSON.stringify(b));
        const text = await res.text();
        expect([200, 400, 403], text).toContain(res.status);
        expect(text).not.toContain("\n");
      }),
      { numRuns: 150 },
    );
  });
});

describe("deregistrations are vetted as Consul vets them", () => {
  it("node:write on the node removes anything; without it, service:write on the service or the check's service", async () => {
    await register(
      s,
      {
        Node: "hidden",
        Address: "10.4.0.2",
        Service: { ID: "extra", Service: "web" },
        Checks: [{ CheckID: "extra-check", ServiceID: "extra" }, { CheckID: "node-check" }],
      },
      "/v1/catalog/register?token=ops",
    );
    const deregister = (body: Rec) => s.req("PUT", "/v1/catalog/deregister", JSON.stringify(body));
    const node = async (name: string) =>
      (await getJson<{ Services: Rec } | null>(s, `/v1/catalog/node/${name}?token=ops`)).body;
    // A node check takes node:write; a service's check and the service itself, service:write on it.
    expect((await deregister({ Node: "hidden", CheckID: "node-check" })).status).toBe(403);
    expect((await deregister({ Node: "hidden", CheckID: "extra-check" })).status).toBe(200);
    const unknown = await deregister({ Node: "hidden", ServiceID: "nope" });
    expect([unknown.status, await unknown.text()]).toEqual([400, "Unknown service ID 'nope'"]);
    expect((await deregister({ Node: "hidden", ServiceID: "extra" })).status).toBe(200);
    expect(Object.keys((await node("hidden"))!.Services)).toEqual(["web"]);
    // node:write on "open" removes even the service its token may not write.
    expect((await deregister({ Node: "open", ServiceID: "secret" })).status).toBe(200);
    expect(Object.keys((await node("open"))!.Services)).toEqual(["web"]);
  });
});
