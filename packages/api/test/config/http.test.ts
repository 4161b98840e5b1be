import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AclAccess, AclResourceType, Authorizer } from "../../src/authorizer.js";
import { startServer, type TestServer } from "../http/harness.js";

interface Entry {
  Kind: string;
  Name: string;
  CreateIndex: number;
  ModifyIndex: number;
  [field: string]: unknown;
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const put = (body: unknown, query = "") => s.json<unknown>("PUT", `/v1/config${query}`, body);
const read = (kind: string, name: string, query = "") =>
  s.json<Entry>("GET", `/v1/config/${kind}/${name}${query}`);
const list = (kind: string, query = "") => s.json<Entry[]>("GET", `/v1/config/${kind}${query}`);
const index = (res: Response) => Number(res.headers.get("X-Consul-Index"));

describe("PUT /v1/config and reads", () => {
  it("stores an entry, reads it back with its indexes and both index headers", async () => {
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "http" })).body).toBe(true);
    const { status, body, res } = await read("service-defaults", "web");
    expect(status).toBe(200);
    expect(body).toMatchObject({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    expect(body.CreateIndex).toBe(body.ModifyIndex);
    expect(res.headers.get("X-Service-Index")).toBe(res.headers.get("X-Consul-Index"));
    expect(index(res)).toBeGreaterThanOrEqual(body.ModifyIndex);
    expect(res.headers.get("X-Consul-KnownLeader")).toBe("true");
  });

  it("lists a kind as an array, empty when none", async () => {
    await put({ Kind: "service-defaults", Name: "api", Protocol: "grpc" });
    const { body } = await list("service-defaults");
    expect(body.map((e) => e.Name)).toEqual(["api", "web"]);
    expect((await list("terminating-gateway")).body).toEqual([]);
  });

  it("answers 404 for a missing entry, with index headers", async () => {
    const { status, body, res } = await read("service-defaults", "nobody");
    expect(status).toBe(404);
    expect(body).toBe('Config entry not found for "service-defaults" / "nobody"');
    expect(index(res)).toBeGreaterThan(0);
  });

  it("follows spec 3's cas table", async () => {
    const entry = { Kind: "service-resolver", Name: "cas", ConnectTimeout: "5s" };
    expect((await put(entry, "?cas=0")).body).toBe(true);
    expect((await put({ ...entry, ConnectTimeout: "6s" }, "?cas=0")).body).toBe(false);
    const stored = (await read("service-resolver", "cas")).body;
    expect((await put({ ...entry, ConnectTimeout: "7s" }, `?cas=${stored.ModifyIndex + 100}`)).body).toBe(
      false,
    );
    expect((await put({ ...entry, ConnectTimeout: "8s" }, `?cas=${stored.ModifyIndex}`)).body).toBe(true);
    const updated = (await read("service-resolver", "cas")).body;
    expect(updated).toMatchObject({ ConnectTimeout: "8s", CreateIndex: stored.CreateIndex });
    expect((await put({ Kind: "service-resolver", Name: "fresh" }, "?cas=5")).body).toBe(false);
    expect((await read("service-resolver", "fresh")).status).toBe(404);
    expect((await put(entry, "?cas=abc")).status).toBe(400);
  });

  it("deletes: a plain delete answers {}, a cas delete true or false", async () => {
    await put({ Kind: "service-resolver", Name: "gone" });
    const { ModifyIndex } = (await read("service-resolver", "gone")).body;
    expect((await s.json("DELETE", `/v1/config/service-resolver/gone?cas=${ModifyIndex + 1}`)).body).toBe(
      false,
    );
    expect((await s.json("DELETE", `/v1/config/service-resolver/gone?cas=${ModifyIndex}`)).body).toBe(true);
    expect((await read("service-resolver", "gone")).status).toBe(404);
    expect((await s.json("DELETE", "/v1/config/service-resolver/gone")).body).toEqual({});
  });

  it("keeps namespaces apart (?ns and the namespace header)", async () => {
    expect((await s.json("PUT", "/v1/namespace", { Name: "team" })).status).toBe(200);
    await put({ Kind: "service-defaults", Name: "web", Protocol: "tcp" }, "?ns=team");
    expect((await read("service-defaults", "web", "?ns=team")).body).toMatchObject({
      Protocol: "tcp",
      Namespace: "team",
    });
    expect((await read("service-defaults", "web")).body.Protocol).toBe("http");
    const viaHeader = await s.req("GET", "/v1/config/service-defaults/web", undefined, {
      "X-Consul-Namespace": "team",
    });
    expect(((await viaHeader.json()) as Entry).Protocol).toBe("tcp");
    expect((await list("service-defaults", "?ns=*")).body).toHaveLength(3);
  });

  it("keeps proxy-defaults in the default namespace whatever the request names", async () => {
    expect((await put({ Kind: "proxy-defaults", Config: { protocol: "tcp" } }, "?ns=team")).body).toBe(true);
    const global = (await read("proxy-defaults", "global")).body as Entry;
    expect(global.Name).toBe("global");
    // In the default namespace, as Consul's open-source edition writes it: no Namespace field.
    expect(global).not.toHaveProperty("Namespace");
    expect((await list("proxy-defaults", "?ns=team")).body).toHaveLength(1);
    expect((await s.json("DELETE", "/v1/config/proxy-defaults/global?ns=team")).status).toBe(200);
    expect((await read("proxy-defaults", "global")).status).toBe(404);
  });

  it("accepts a snake_case body (as written in config files)", async () => {
    const res = await put({
      kind: "service-router",
      name: "api",
      routes: [
        { match: { http: { path_prefix: "/v2" } }, destination: { service: "api", request_timeout: "3s" } },
      ],
    });
    expect(res.body).toBe(true);
    expect((await read("service-router", "api")).body.Routes).toEqual([
      { Match: { HTTP: { PathPrefix: "/v2" } }, Destination: { Service: "api", RequestTimeout: "3s" } },
    ]);
  });
});

describe("/v1/config bad input: 400, one line, nothing stored", () => {
  it.each([
    [
      "an unknown kind",
      { Kind: "api-gadget", Name: "x" },
      "Request decoding failed: invalid config entry kind: api-gadget",
    ],
    [
      "a field of the wrong type",
      { Kind: "service-defaults", Name: "x", MaxInboundConnections: "many" },
      "'MaxInboundConnections'",
    ],
    [
      "splitter weights not summing to 100",
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 50 }, { Weight: 40, Service: "api" }] },
      "the sum of all split weights must be 100, not 90.000000",
    ],
    [
      "a splitter on a tcp service",
      { Kind: "service-splitter", Name: "tcp-only", Splits: [{ Weight: 100 }] },
      'discovery chain "tcp-only" uses a protocol "tcp" that does not permit advanced routing or splitting behavior',
    ],
    [
      "a split to a subset the resolver lacks",
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 100, ServiceSubset: "v9" }] },
      'service "web" does not have a subset named "v9"',
    ],
    ["malformed JSON", "{", "Request decoding failed:"],
  ])("refuses %s", async (_name, body, reason) => {
    const before = await s.req("GET", "/v1/config/service-splitter");
    const { status, body: text } = await put(body);
    expect(status).toBe(400);
    expect(text).toEqual(expect.stringContaining(reason));
    expect(String(text)).not.toMatch(/\n/);
    const after = await s.req("GET", "/v1/config/service-splitter");
    expect(await after.json()).toEqual(await before.json());
    expect(index(after)).toBe(index(before));
  });

  it("names an unknown kind on reads and deletes", async () => {
    for (const [method, path] of [
      ["GET", "/v1/config/widget"],
      ["GET", "/v1/config/widget/x"],
      ["DELETE", "/v1/config/widget/x"],
    ] as const) {
      const res = await s.json(method, path);
      expect(res.status).toBe(400);
      expect(res.body).toBe("invalid config entry kind: widget");
    }
  });

  it("answers 405 with Allow for a wrong method", async () => {
    const res = await s.req("POST", "/v1/config");
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("OPTIONS,PUT");
  });

  it("refuses a delete that would break a chain", async () => {
    await put({ Kind: "service-defaults", Name: "shop", Protocol: "http" });
    expect((await put({ Kind: "service-splitter", Name: "shop", Splits: [{ Weight: 100 }] })).body).toBe(
      true,
    );
    const res = await s.json("DELETE", "/v1/config/service-defaults/shop");
    expect(res.status).toBe(400);
    expect(res.body).toContain("does not permit advanced routing");
    expect((await read("service-defaults", "shop")).status).toBe(200);
  });
});

describe("/v1/config blocking queries and consistency modes", () => {
  it("a kind list blocks until that kind changes, not on other kinds", async () => {
    const first = await list("ingress-gateway");
    const at = index(first.res);
    const started = Date.now();
    const blocked = list("ingress-gateway", `?index=${at}&wait=5s`);
    await new Promise((r) => setTimeout(r, 100));
    await put({ Kind: "service-resolver", Name: "unrelated" });
    await new Promise((r) => setTimeout(r, 100));
    await put({
      Kind: "ingress-gateway",
      Name: "edge",
      Listeners: [{ Port: 80, Protocol: "http", Services: [{ Name: "web" }] }],
    });
    const { body, res } = await blocked;
    expect(Date.now() - started).toBeLessThan(4000);
    expect(body.map((e) => e.Name)).toEqual(["edge"]);
    expect(index(res)).toBeGreaterThan(at);
  });

  it("an entry read times out with the same index when nothing about it changes", async () => {
    const { res } = await read("service-defaults", "web");
    const at = index(res);
    const again = await read("service-defaults", "web", `?index=${at}&wait=200ms`);
    expect(again.status).toBe(200);
    expect(index(again.res)).toBe(at);
  });

  it("accepts stale and consistent reads and refuses both together", async () => {
    expect((await read("service-defaults", "web", "?stale")).status).toBe(200);
    expect((await list("service-defaults", "?consistent")).status).toBe(200);
    const both = await list("service-defaults", "?stale&consistent");
    expect(both.status).toBe(400);
    expect(both.body).toBe("Cannot specify ?stale with ?consistent, conflicting semantics.");
  });
});

describe("/v1/config ACL seam (spec 3's per-kind table)", () => {
  type Asked = [AclResourceType, string, AclAccess];
  let acl: TestServer;
  const asked: Asked[] = [];
  let deny: (type: AclResourceType, name: string) => boolean = () => false;
  const recorder: Authorizer = {
    authorize(_token, _ns, type, name, access) {
      asked.push([type, name, access]);
      return deny(type, name) ? "deny" : "allow";
    },
  };
  beforeAll(async () => {
    acl = await startServer({}, { authorizer: recorder });
  });
  afterAll(() => acl.close());

  const askedFor = async (method: string, path: string, body?: unknown) => {
    asked.length = 0;
    const res = await acl.json(method, path, body);
    return { status: res.status, asked: [...asked] };
  };

  it.each([
    ["proxy-defaults", "global", ["operator", "", "write"], undefined],
    ["ingress-gateway", "gw", ["operator", "", "write"], ["service", "gw", "read"]],
    ["terminating-gateway", "tgw", ["operator", "", "write"], ["service", "tgw", "read"]],
    ["service-defaults", "web", ["service", "web", "write"], ["service", "web", "read"]],
    ["service-resolver", "web", ["service", "web", "write"], ["service", "web", "read"]],
    ["service-intentions", "web", ["intentions", "web", "write"], ["intentions", "web", "read"]],
  ] as const)("%s asks %j to write and %j to read", async (kind, name, write, readPrivilege) => {
    const body =
      kind === "service-intentions"
        ? { Kind: kind, Name: name, Sources: [{ Name: "a", Action: "allow" }] }
        : { Kind: kind, Name: name };
    expect(await askedFor("PUT", "/v1/config", body)).toEqual({ status: 200, asked: [write] });
    expect(await askedFor("GET", `/v1/config/${kind}/${name}`)).toEqual({
      status: 200,
      asked: readPrivilege ? [readPrivilege] : [],
    });
    expect((await askedFor("DELETE", `/v1/config/${kind}/${name}`)).asked).toEqual([write]);
  });

  it("refuses with 403 and filters lists to what the token may read", async () => {
    await acl.json("PUT", "/v1/config", { Kind: "service-defaults", Name: "open" });
    await acl.json("PUT", "/v1/config", { Kind: "service-defaults", Name: "secret" });
    deny = (_type, name) => name === "secret";
    try {
      expect((await acl.json("GET", "/v1/config/service-defaults/secret")).status).toBe(403);
      expect((await acl.json("PUT", "/v1/config", { Kind: "service-defaults", Name: "secret" })).body).toBe(
        "Permission denied",
      );
      const visible = await acl.json<Entry[]>("GET", "/v1/config/service-defaults");
      expect(visible.body.map((e) => e.Name)).toEqual(["open"]);
    } finally {
      deny = () => false;
    }
  });
});
