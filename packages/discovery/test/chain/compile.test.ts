import { describe, expect, it } from "vitest";
import {
  ChainCompileError,
  type ChainEntries,
  type ChainOverrides,
  type ConfigEntryFields,
  compileChain,
} from "../../src/index.js";

type Entry = ConfigEntryFields & { Kind: string; Name: string; Namespace?: string };

/** Config entries as the state store keeps them, looked up as the API's adapter does. */
function entriesOf(list: readonly Entry[]): ChainEntries {
  const byKey = new Map(list.map((e) => [`${e.Kind}/${e.Namespace ?? "default"}/${e.Name}`, e]));
  const get = (kind: string) => (name: string, ns: string) => byKey.get(`${kind}/${ns}/${name}`);
  return {
    resolver: get("service-resolver"),
    splitter: get("service-splitter"),
    router: get("service-router"),
    serviceDefaults: get("service-defaults"),
    proxyDefaults: () => byKey.get("proxy-defaults/default/global"),
  };
}

const compile = (
  entries: readonly Entry[],
  opts: { service?: string; dc?: string; cluster?: string; overrides?: ChainOverrides } = {},
) =>
  compileChain({
    serviceName: opts.service ?? "web",
    namespace: "default",
    datacenter: opts.dc ?? "dc1",
    trustDomain: `${opts.cluster ?? "11111111-2222-3333-4444-555555555555"}.consul`,
    entries: entriesOf(entries),
    overrides: opts.overrides,
  });

/** A target as Consul shows it. */
function target(id: string, cluster: string, extra: Record<string, unknown> = {}) {
  const parts = id.split(".");
  const [service, ns, dc] = parts.length === 4 ? parts.slice(1) : parts;
  return {
    ID: id,
    Service: service,
    ...(parts.length === 4 ? { ServiceSubset: parts[0] } : {}),
    Namespace: ns,
    Datacenter: dc,
    MeshGateway: {},
    Subset: {},
    SNI: `${id}.internal.${cluster}.consul`,
    Name: `${id}.internal.${cluster}.consul`,
    ...extra,
  };
}

const resolverNode = (id: string, resolver: Record<string, unknown> = {}) => ({
  [`resolver:${id}`]: {
    Type: "resolver",
    Name: id,
    Resolver: { ConnectTimeout: "5s", Target: id, ...resolver },
  },
});

const defaults = (name: string, protocol: string): Entry => ({
  Kind: "service-defaults",
  Name: name,
  Protocol: protocol,
});

describe("discovery chain: the compile behaviours spec 3 lists (Consul's documented examples)", () => {
  it("1. a wildcard failover to datacenters lists a failover target per datacenter", () => {
    const cluster = "47e25151-6212-ba25-8b7e-81adbbbab461";
    const chain = compile(
      [
        {
          Kind: "service-resolver",
          Name: "web",
          ConnectTimeout: "15s",
          Failover: { "*": { Datacenters: ["dc3", "dc4"] } },
        },
      ],
      { cluster },
    );
    expect(chain).toEqual({
      ServiceName: "web",
      Namespace: "default",
      Datacenter: "dc1",
      Protocol: "tcp",
      StartNode: "resolver:web.default.dc1",
      Nodes: resolverNode("web.default.dc1", {
        ConnectTimeout: "15s",
        Failover: { Targets: ["web.default.dc3", "web.default.dc4"] },
      }),
      Targets: {
        "web.default.dc1": target("web.default.dc1", cluster),
        "web.default.dc3": target("web.default.dc3", cluster),
        "web.default.dc4": target("web.default.dc4", cluster),
      },
    });
  });

  it("2. a redirect to a datacenter starts at the resolver of the redirected target", () => {
    const cluster = "59c17fd4-8dfa-f54a-ae71-855b26faf637";
    const chain = compile([{ Kind: "service-resolver", Name: "web", Redirect: { Datacenter: "dc2" } }], {
      cluster,
    });
    expect(chain).toEqual({
      ServiceName: "web",
      Namespace: "default",
      Datacenter: "dc1",
      Protocol: "tcp",
      StartNode: "resolver:web.default.dc2",
      Nodes: resolverNode("web.default.dc2"),
      Targets: { "web.default.dc2": target("web.default.dc2", cluster) },
    });
  });

  it("3. overrides replace the timeout, the protocol and the mesh gateway mode, and add CustomizationHash", () => {
    const cluster = "59c17fd4-8dfa-f54a-ae71-855b26faf637";
    const chain = compile([{ Kind: "service-resolver", Name: "web", Redirect: { Datacenter: "dc2" } }], {
      cluster,
      overrides: {
        connectTimeout: { text: "7s", nanos: 7_000_000_000n },
        protocol: "grpc",
        meshGatewayMode: "remote",
      },
    });
    // The hash is Consul's own for these overrides (its documentation shows b94f529a).
    expect(chain).toEqual({
      ServiceName: "web",
      Namespace: "default",
      Datacenter: "dc1",
      CustomizationHash: "b94f529a",
      Protocol: "grpc",
      StartNode: "resolver:web.default.dc2",
      Nodes: resolverNode("web.default.dc2", { ConnectTimeout: "7s" }),
      Targets: { "web.default.dc2": target("web.default.dc2", cluster, { MeshGateway: { Mode: "remote" } }) },
    });
  });

  it("4. a splitter over subsets starts at splitter:<name> with a resolver per subset; protocol http", () => {
    const cluster = "6c9594ec-d798-28b9-d084-aa03e81cf078";
    const chain = compile(
      [
        {
          Kind: "service-resolver",
          Name: "web",
          DefaultSubset: "v1",
          Subsets: {
            v1: { Filter: "Service.Meta.version == v1" },
            v2: { Filter: "Service.Meta.version == v2" },
          },
        },
        defaults("web", "http"),
        {
          Kind: "service-splitter",
          Name: "web",
          Splits: [
            { Weight: 90, ServiceSubset: "v1" },
            { Weight: 10, ServiceSubset: "v2" },
          ],
        },
      ],
      { cluster, dc: "dc2" },
    );
    expect(chain).toEqual({
      ServiceName: "web",
      Namespace: "default",
      Datacenter: "dc2",
      Protocol: "http",
      StartNode: "splitter:web",
      Nodes: {
        ...resolverNode("v1.web.default.dc2"),
        ...resolverNode("v2.web.default.dc2"),
        "splitter:web": {
          Type: "splitter",
          Name: "web",
          Splits: [
            { Weight: 90, NextNode: "resolver:v1.web.default.dc2" },
            { Weight: 10, NextNode: "resolver:v2.web.default.dc2" },
          ],
        },
      },
      Targets: {
        "v1.web.default.dc2": target("v1.web.default.dc2", cluster, {
          Subset: { Filter: "Service.Meta.version == v1" },
        }),
        "v2.web.default.dc2": target("v2.web.default.dc2", cluster, {
          Subset: { Filter: "Service.Meta.version == v2" },
        }),
      },
    });
  });

  it("5. a router keeps its routes in order, then a catch-all to the service; an unconfigured destination gets a default resolver", () => {
    const cluster = "fce8a058-0981-2c04-d23c-b7375af64ce8";
    const adminRoute = {
      Match: { HTTP: { PathPrefix: "/admin" } },
      Destination: { Service: "admin", PrefixRewrite: "/", RequestTimeout: "15s" },
    };
    const canaryRoute = {
      Match: { HTTP: { Header: [{ Name: "x-debug", Exact: "1" }] } },
      Destination: {
        Service: "web",
        ServiceSubset: "canary",
        NumRetries: 5,
        RetryOnConnectFailure: true,
        RetryOnStatusCodes: [401, 409],
      },
    };
    const chain = compile(
      [
        {
          Kind: "service-resolver",
          Name: "web",
          Subsets: { canary: { Filter: "Service.Meta.flavor == canary" } },
        },
        { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } },
        { Kind: "service-router", Name: "web", Routes: [adminRoute, canaryRoute] },
      ],
      { cluster },
    );
    expect(chain).toEqual({
      ServiceName: "web",
      Namespace: "default",
      Datacenter: "dc1",
      Protocol: "http",
      StartNode: "router:web",
      Nodes: {
        ...resolverNode("admin.default.dc1", { Default: true }),
        ...resolverNode("canary.web.default.dc1"),
        ...resolverNode("web.default.dc1"),
        "router:web": {
          Type: "router",
          Name: "web",
          Routes: [
            { Definition: adminRoute, NextNode: "resolver:admin.default.dc1" },
            { Definition: canaryRoute, NextNode: "resolver:canary.web.default.dc1" },
            {
              Definition: { Match: { HTTP: { PathPrefix: "/" } }, Destination: { Service: "web" } },
              NextNode: "resolver:web.default.dc1",
            },
          ],
        },
      },
      Targets: {
        "admin.default.dc1": target("admin.default.dc1", cluster),
        "canary.web.default.dc1": target("canary.web.default.dc1", cluster, {
          Subset: { Filter: "Service.Meta.flavor == canary" },
        }),
        "web.default.dc1": target("web.default.dc1", cluster),
      },
    });
  });

  it("6. without entries: one default resolver with the 5s timeout, protocol tcp", () => {
    const cluster = "11111111-2222-3333-4444-555555555555";
    expect(compile([])).toEqual({
      ServiceName: "web",
      Namespace: "default",
      Datacenter: "dc1",
      Protocol: "tcp",
      StartNode: "resolver:web.default.dc1",
      Nodes: resolverNode("web.default.dc1", { Default: true }),
      Targets: { "web.default.dc1": target("web.default.dc1", cluster) },
    });
  });
});

describe("discovery chain: Consul's further rules", () => {
  const http = (...names: string[]) => names.map((n) => defaults(n, "http"));

  it("a split to another service with its own splitter is flattened, weights multiplied", () => {
    const chain = compile([
      ...http("web", "api"),
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 50, Service: "api" }, { Weight: 50 }] },
      {
        Kind: "service-splitter",
        Name: "api",
        Splits: [
          { Weight: 33.33, ServiceSubset: "a" },
          { Weight: 66.67, ServiceSubset: "b" },
        ],
      },
      { Kind: "service-resolver", Name: "api", Subsets: { a: {}, b: {} } },
    ]);
    expect(chain.StartNode).toBe("splitter:web");
    expect(chain.Nodes["splitter:web"]).toEqual({
      Type: "splitter",
      Name: "web",
      Splits: [
        { Weight: 16.67, NextNode: "resolver:a.api.default.dc1" },
        { Weight: 33.34, NextNode: "resolver:b.api.default.dc1" },
        { Weight: 50, NextNode: "resolver:web.default.dc1" },
      ],
    });
    // The inner splitter is no longer reachable and is dropped.
    expect(Object.keys(chain.Nodes).sort()).toEqual([
      "resolver:a.api.default.dc1",
      "resolver:b.api.default.dc1",
      "resolver:web.default.dc1",
      "splitter:web",
    ]);
  });

  it("a router destination's own splitter is followed", () => {
    const chain = compile([
      ...http("web", "api", "api-v2"),
      {
        Kind: "service-router",
        Name: "web",
        Routes: [{ Match: { HTTP: { PathPrefix: "/api" } }, Destination: { Service: "api" } }],
      },
      { Kind: "service-splitter", Name: "api", Splits: [{ Weight: 80 }, { Weight: 20, Service: "api-v2" }] },
    ]);
    const router = chain.Nodes["router:web"];
    expect(router?.Type === "router" && router.Routes.map((r) => r.NextNode)).toEqual([
      "splitter:api",
      "resolver:web.default.dc1",
    ]);
    expect(chain.Nodes["splitter:api"]).toEqual({
      Type: "splitter",
      Name: "api",
      Splits: [
        { Weight: 80, NextNode: "resolver:api.default.dc1" },
        { Weight: 20, NextNode: "resolver:api-v2.default.dc1" },
      ],
    });
  });

  it("subset filters (and OnlyPassing) land on the subset's target; a default subset is applied", () => {
    const chain = compile([
      {
        Kind: "service-resolver",
        Name: "web",
        DefaultSubset: "stable",
        Subsets: { stable: { Filter: "Service.Meta.track == stable", OnlyPassing: true } },
      },
    ]);
    expect(chain.StartNode).toBe("resolver:stable.web.default.dc1");
    expect(chain.Targets["stable.web.default.dc1"]?.Subset).toEqual({
      Filter: "Service.Meta.track == stable",
      OnlyPassing: true,
    });
  });

  it("failover targets are resolved through their own redirects", () => {
    const chain = compile([
      { Kind: "service-resolver", Name: "web", Failover: { "*": { Service: "backup" } } },
      { Kind: "service-resolver", Name: "backup", Redirect: { Datacenter: "dc9" } },
    ]);
    expect(chain.Nodes["resolver:web.default.dc1"]).toEqual({
      Type: "resolver",
      Name: "web.default.dc1",
      Resolver: {
        ConnectTimeout: "5s",
        Target: "web.default.dc1",
        Failover: { Targets: ["backup.default.dc9"] },
      },
    });
    expect(Object.keys(chain.Targets).sort()).toEqual(["backup.default.dc9", "web.default.dc1"]);
  });

  it("a failover naming only the target itself is dropped", () => {
    const chain = compile([
      { Kind: "service-resolver", Name: "web", Failover: { "*": { Datacenters: ["dc1"] } } },
    ]);
    const node = chain.Nodes["resolver:web.default.dc1"];
    expect(node?.Type === "resolver" && node.Resolver.Failover).toBeUndefined();
  });

  it("service-defaults and proxy-defaults mesh gateway modes reach the targets", () => {
    const chain = compile([
      { Kind: "proxy-defaults", Name: "global", MeshGateway: { Mode: "local" } },
      { Kind: "service-resolver", Name: "web", Failover: { "*": { Service: "other" } } },
      { Kind: "service-defaults", Name: "other", MeshGateway: { Mode: "remote" } },
    ]);
    expect(chain.Targets["web.default.dc1"]?.MeshGateway).toEqual({ Mode: "local" });
    expect(chain.Targets["other.default.dc1"]?.MeshGateway).toEqual({ Mode: "remote" });
  });

  it("an override equal to the configured value customizes nothing", () => {
    const chain = compile([defaults("web", "http")], {
      overrides: { protocol: "http", connectTimeout: { text: "5s", nanos: 5_000_000_000n } },
    });
    expect(chain.CustomizationHash).toBeUndefined();
  });

  it("OverrideProtocol tcp drops routers and splitters (and says so in the hash)", () => {
    const chain = compile(
      [...http("web"), { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 100, Service: "web" }] }],
      { overrides: { protocol: "tcp" } },
    );
    expect(chain.StartNode).toBe("resolver:web.default.dc1");
    expect(chain.Protocol).toBe("tcp");
    expect(chain.CustomizationHash).toMatch(/^[0-9a-f]{1,8}$/);
  });

  it("an external SNI replaces the target's SNI and marks it external", () => {
    const chain = compile([{ Kind: "service-defaults", Name: "web", ExternalSNI: "web.example.com" }]);
    expect(chain.Targets["web.default.dc1"]).toMatchObject({ SNI: "web.example.com", External: true });
  });
});

describe("discovery chain: compile errors (Consul's messages)", () => {
  const fails = (entries: readonly Entry[], message: string) => {
    expect(() => compile(entries)).toThrow(ChainCompileError);
    expect(() => compile(entries)).toThrow(message);
  };

  it("a router on a tcp service", () => {
    fails(
      [{ Kind: "service-router", Name: "web", Routes: [] }],
      'discovery chain "web" uses a protocol "tcp" that does not permit advanced routing or splitting behavior',
    );
  });

  it("a splitter on a tcp service", () => {
    fails(
      [{ Kind: "service-splitter", Name: "web", Splits: [{ Weight: 100 }] }],
      'discovery chain "web" uses a protocol "tcp" that does not permit advanced routing or splitting behavior',
    );
  });

  it("services of one chain with different protocols", () => {
    fails(
      [
        defaults("web", "http"),
        defaults("api", "grpc"),
        { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 50 }, { Weight: 50, Service: "api" }] },
      ],
      'discovery chain "web" uses inconsistent protocols; service "api" has "grpc" which is not "http"',
    );
  });

  it("a subset the resolver does not define", () => {
    fails(
      [
        defaults("web", "http"),
        { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 100, ServiceSubset: "v9" }] },
      ],
      'service "web" does not have a subset named "v9"',
    );
  });

  it("circular redirects", () => {
    fails(
      [
        { Kind: "service-resolver", Name: "web", Redirect: { Service: "a" } },
        { Kind: "service-resolver", Name: "a", Redirect: { Service: "web" } },
      ],
      "detected circular resolver redirect: [web.default.dc1 -> a.default.dc1 -> web.default.dc1]",
    );
  });

  it("splitters that lead back to themselves", () => {
    fails(
      [
        ...["web", "a"].map((n) => defaults(n, "http")),
        { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 100, Service: "a" }] },
        { Kind: "service-splitter", Name: "a", Splits: [{ Weight: 100, Service: "web" }] },
      ],
      "detected circular reference: [splitter:web -> splitter:a -> splitter:web]",
    );
  });

  it("an external service with subsets", () => {
    fails(
      [
        { Kind: "service-defaults", Name: "web", ExternalSNI: "x" },
        { Kind: "service-resolver", Name: "web", Subsets: { a: {} } },
      ],
      'service "web" has an external SNI set; cannot define subsets for external services',
    );
  });
});
