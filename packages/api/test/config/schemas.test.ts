import { readJson } from "@cairn/json";
import { describe, expect, it } from "vitest";
import { parseConfigEntry } from "../../src/config-entries/parse.js";
import { HttpError } from "../../src/http/errors.js";

const parse = (body: unknown) => parseConfigEntry(readJson(JSON.stringify(body)));

/** The 400 reason a body is refused with. */
function refusal(body: unknown): string {
  try {
    parse(body);
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) return err.message;
    throw err;
  }
  throw new Error("accepted");
}

describe("config entry schemas: every kind in CamelCase and snake_case", () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
    [
      "service-defaults",
      {
        Kind: "service-defaults",
        Name: "web",
        Protocol: "HTTP",
        Mode: "transparent",
        TransparentProxy: { OutboundListenerPort: 15001, DialedDirectly: true },
        MutualTLSMode: "strict",
        MeshGateway: { Mode: "local" },
        Expose: { Checks: true, Paths: [{ ListenerPort: 21500, Path: "/health", LocalPathPort: 8080 }] },
        ExternalSNI: "web.example",
        UpstreamConfig: {
          Overrides: [{ Name: "db", Protocol: "TCP", ConnectTimeoutMs: 500, Limits: { MaxConnections: 10 } }],
          Defaults: { PassiveHealthCheck: { Interval: "10s", MaxFailures: 3 } },
        },
        MaxInboundConnections: 100,
        LocalConnectTimeoutMs: 1000,
        LocalRequestTimeoutMs: 2000,
        BalanceInboundConnections: "exact_balance",
        EnvoyExtensions: [{ Name: "builtin/lua", Arguments: { Script: "x", Nested: { Keep_Case: 1 } } }],
        Meta: { Owner_Team: "a" },
      },
      {
        kind: "service-defaults",
        name: "web",
        protocol: "HTTP",
        mode: "transparent",
        transparent_proxy: { outbound_listener_port: 15001, dialed_directly: true },
        mutual_tls_mode: "strict",
        mesh_gateway: { mode: "local" },
        expose: { checks: true, paths: [{ listener_port: 21500, path: "/health", local_path_port: 8080 }] },
        external_sni: "web.example",
        upstream_config: {
          overrides: [
            { name: "db", protocol: "TCP", connect_timeout_ms: 500, limits: { max_connections: 10 } },
          ],
          defaults: { passive_health_check: { interval: "10s", max_failures: 3 } },
        },
        max_inbound_connections: 100,
        local_connect_timeout_ms: 1000,
        local_request_timeout_ms: 2000,
        balance_inbound_connections: "exact_balance",
        envoy_extensions: [{ name: "builtin/lua", arguments: { Script: "x", Nested: { Keep_Case: 1 } } }],
        meta: { Owner_Team: "a" },
      },
      {
        Protocol: "http",
        UpstreamConfig: {
          Overrides: [{ Name: "db", Protocol: "tcp", ConnectTimeoutMs: 500, Limits: { MaxConnections: 10 } }],
          Defaults: { PassiveHealthCheck: { Interval: 10_000_000_000, MaxFailures: 3 } },
        },
        EnvoyExtensions: [{ Name: "builtin/lua", Arguments: { Script: "x", Nested: { Keep_Case: 1 } } }],
        Meta: { Owner_Team: "a" },
      },
    ],
    [
      "proxy-defaults",
      {
        Kind: "proxy-defaults",
        Name: "global",
        Config: { protocol: "http", local_connect_timeout_ms: 1000 },
        Mode: "direct",
        AccessLogs: { Enabled: true, Type: "file", Path: "/tmp/a.log" },
      },
      {
        kind: "proxy-defaults",
        name: "global",
        config: { protocol: "http", local_connect_timeout_ms: 1000 },
        mode: "direct",
        access_logs: { enabled: true, type: "file", path: "/tmp/a.log" },
      },
      {
        Config: { protocol: "http", local_connect_timeout_ms: 1000 },
        AccessLogs: { Enabled: true, Type: "file" },
      },
    ],
    [
      "service-resolver",
      {
        Kind: "service-resolver",
        Name: "web",
        DefaultSubset: "v1",
        Subsets: { v1: { Filter: "Service.Meta.version == 1", OnlyPassing: true }, v2: { Filter: "" } },
        Failover: {
          "*": { Datacenters: ["dc2", "dc3"] },
          v2: { Targets: [{ Service: "web", ServiceSubset: "v1" }] },
        },
        ConnectTimeout: "15s",
        RequestTimeout: 2_500_000_000,
        LoadBalancer: {
          Policy: "ring_hash",
          RingHashConfig: { MinimumRingSize: 1024 },
          HashPolicies: [{ SourceIP: true }],
        },
      },
      {
        kind: "service-resolver",
        name: "web",
        default_subset: "v1",
        subsets: { v1: { filter: "Service.Meta.version == 1", only_passing: true }, v2: { filter: "" } },
        failover: {
          "*": { datacenters: ["dc2", "dc3"] },
          v2: { targets: [{ service: "web", service_subset: "v1" }] },
        },
        connect_timeout: "15s",
        request_timeout: 2_500_000_000,
        load_balancer: {
          policy: "ring_hash",
          ring_hash_config: { minimum_ring_size: 1024 },
          hash_policies: [{ source_ip: true }],
        },
      },
      { ConnectTimeout: "15s", RequestTimeout: "2.5s", Subsets: { v1: { OnlyPassing: true } } },
    ],
    [
      "service-splitter",
      {
        Kind: "service-splitter",
        Name: "web",
        Splits: [
          { Weight: 33.33, ServiceSubset: "v1", RequestHeaders: { Set: { "x-version": "1" } } },
          { Weight: 33.33, ServiceSubset: "v2" },
          { Weight: 33.34, Service: "other" },
        ],
      },
      {
        kind: "service-splitter",
        name: "web",
        splits: [
          { weight: 33.33, service_subset: "v1", request_headers: { set: { "x-version": "1" } } },
          { weight: 33.33, service_subset: "v2" },
          { weight: 33.34, service: "other" },
        ],
      },
      {
        Splits: [
          { Weight: 33.33, ServiceSubset: "v1", RequestHeaders: { Set: { "x-version": "1" } } },
          {},
          {},
        ],
      },
    ],
    [
      "service-router",
      {
        Kind: "service-router",
        Name: "web",
        Routes: [
          {
            Match: {
              HTTP: {
                PathPrefix: "/admin",
                Header: [{ Name: "x-debug", Exact: "1" }],
                QueryParam: [{ Name: "q", Present: true }],
                Methods: ["get", "POST"],
              },
            },
            Destination: {
              Service: "admin",
              PrefixRewrite: "/",
              RequestTimeout: "30s",
              NumRetries: 3,
              RetryOnConnectFailure: true,
              RetryOnStatusCodes: [503],
              RetryOn: ["5xx"],
            },
          },
        ],
      },
      {
        kind: "service-router",
        name: "web",
        routes: [
          {
            match: {
              http: {
                path_prefix: "/admin",
                header: [{ name: "x-debug", exact: "1" }],
                query_param: [{ name: "q", present: true }],
                methods: ["get", "POST"],
              },
            },
            destination: {
              service: "admin",
              prefix_rewrite: "/",
              request_timeout: "30s",
              num_retries: 3,
              retry_on_connect_failure: true,
              retry_on_status_codes: [503],
              retry_on: ["5xx"],
            },
          },
        ],
      },
      { Routes: [{ Match: { HTTP: { Methods: ["GET", "POST"] } }, Destination: { RequestTimeout: "30s" } }] },
    ],
    [
      "service-intentions",
      {
        Kind: "service-intentions",
        Name: "db",
        Sources: [
          { Name: "*", Action: "deny", Description: "default deny" },
          { Name: "web", Permissions: [{ Action: "allow", HTTP: { PathPrefix: "/", Methods: ["get"] } }] },
        ],
        Meta: { k: "v" },
      },
      {
        kind: "service-intentions",
        name: "db",
        sources: [
          { name: "*", action: "deny", description: "default deny" },
          { name: "web", permissions: [{ action: "allow", http: { path_prefix: "/", methods: ["get"] } }] },
        ],
        meta: { k: "v" },
      },
      {
        Sources: [
          { Name: "web", Precedence: 9, Type: "consul", Permissions: [{ HTTP: { Methods: ["GET"] } }] },
          { Name: "*", Precedence: 8, Type: "consul", Action: "deny" },
        ],
      },
    ],
    [
      "ingress-gateway",
      {
        Kind: "ingress-gateway",
        Name: "ingress",
        TLS: { Enabled: true, TLSMinVersion: "TLSv1_2" },
        Listeners: [
          {
            Port: 8080,
            Protocol: "http",
            Services: [{ Name: "web", Hosts: ["web.example"] }, { Name: "api" }],
          },
          { Port: 9090, Services: [{ Name: "db" }] },
        ],
      },
      {
        kind: "ingress-gateway",
        name: "ingress",
        tls: { enabled: true, tls_min_version: "TLSv1_2" },
        listeners: [
          {
            port: 8080,
            protocol: "http",
            services: [{ name: "web", hosts: ["web.example"] }, { name: "api" }],
          },
          { port: 9090, services: [{ name: "db" }] },
        ],
      },
      { Listeners: [{ Protocol: "http" }, { Port: 9090, Protocol: "tcp" }] },
    ],
    [
      "terminating-gateway",
      {
        Kind: "terminating-gateway",
        Name: "egress",
        Services: [
          { Name: "billing", CAFile: "/ca.pem", CertFile: "/c.pem", KeyFile: "/k.pem", SNI: "billing.ext" },
        ],
      },
      {
        kind: "terminating-gateway",
        name: "egress",
        services: [
          {
            name: "billing",
            ca_file: "/ca.pem",
            cert_file: "/c.pem",
            key_file: "/k.pem",
            sni: "billing.ext",
          },
        ],
      },
      { Services: [{ Name: "billing", CAFile: "/ca.pem", SNI: "billing.ext" }] },
    ],
  ];

  it.each(cases)("%s: both spellings decode to the same normalised entry", (kind, camel, snake, expected) => {
    const fromCamel = parse(camel);
    expect(fromCamel).toMatchObject({ Kind: kind, ...expected });
    expect(parse(snake)).toEqual(fromCamel);
  });

  it("fills Consul's defaults: proxy-defaults is global, service-defaults has a Protocol and zero structs", () => {
    expect(parse({ Kind: "proxy-defaults" })).toMatchObject({ Kind: "proxy-defaults", Name: "global" });
    expect(parse({ Kind: "service-defaults", Name: "web" })).toEqual({
      Kind: "service-defaults",
      Name: "web",
      Protocol: "",
      TransparentProxy: {},
      MeshGateway: {},
      Expose: {},
    });
  });

  it("accepts HCL's shapes: a single block for a list, a one-element list for an object", () => {
    const e = parse({
      Kind: "service-splitter",
      Name: "web",
      Splits: { Weight: 100, ServiceSubset: "v1" },
    });
    expect(e.Splits).toEqual([{ Weight: 100, ServiceSubset: "v1" }]);
    const r = parse({ Kind: "service-resolver", Name: "web", Redirect: [{ Service: "api" }] });
    expect(r.Redirect).toEqual({ Service: "api" });
  });

  it("converts scalars weakly as mapstructure does", () => {
    const e = parse({
      Kind: "service-splitter",
      Name: "web",
      Splits: [{ Weight: "50", Service: "a" }, { Weight: 50 }],
    });
    expect(e.Splits).toEqual([{ Weight: 50, Service: "a" }, { Weight: 50 }]);
    const d = parse({ Kind: "service-defaults", Name: "web", TransparentProxy: { DialedDirectly: "true" } });
    expect(d.TransparentProxy).toEqual({ DialedDirectly: true });
  });

  it("ignores CreateIndex and ModifyIndex sent back by a client", () => {
    expect(parse({ Kind: "service-resolver", Name: "web", CreateIndex: 4, ModifyIndex: 9 })).toEqual({
      Kind: "service-resolver",
      Name: "web",
    });
  });
});

describe("config entry schemas: refusals", () => {
  it.each([
    ["an array body", [], "Request decoding failed: the body must be a JSON object"],
    [
      "no kind",
      { Name: "web" },
      "Request decoding failed: Payload does not contain a kind/Kind key at the top level",
    ],
    [
      "a kind that is not a string",
      { Kind: 5, Name: "web" },
      "Request decoding failed: Kind value in payload is not a string",
    ],
    [
      "an unknown kind",
      { Kind: "mesh-thing", Name: "x" },
      "Request decoding failed: invalid config entry kind: mesh-thing",
    ],
    ["no name", { Kind: "service-defaults" }, "Name is required"],
    [
      "an unknown top-level field",
      { Kind: "service-defaults", Name: "w", Protocl: "http" },
      'Request decoding failed: invalid config key "Protocl"',
    ],
    [
      "an unknown nested field",
      { Kind: "service-router", Name: "w", Routes: [{ Match: { HTTP: { PathPrefix: "/", Bogus: 1 } } }] },
      'Request decoding failed: invalid config key "Routes[0].Match.HTTP.Bogus"',
    ],
    [
      "a weight that is not a number",
      { Kind: "service-splitter", Name: "w", Splits: [{ Weight: "lots" }] },
      "Request decoding failed: 'Splits[0].Weight' Invalid input: expected number, received string",
    ],
    [
      "subsets that are not a map",
      { Kind: "service-resolver", Name: "w", Subsets: "v1" },
      "Request decoding failed: 'Subsets' Invalid input: expected record, received string",
    ],
    [
      "a bad duration",
      { Kind: "service-resolver", Name: "w", ConnectTimeout: "soon" },
      `Request decoding failed: 'ConnectTimeout' time: invalid duration "soon"`,
    ],
    [
      "an unknown mesh gateway mode",
      { Kind: "service-defaults", Name: "w", MeshGateway: { Mode: "sideways" } },
      "Request decoding failed: 'MeshGateway.Mode' Invalid Mesh Gateway Mode",
    ],
    [
      "splits not summing to 100",
      { Kind: "service-splitter", Name: "w", Splits: [{ Weight: 60 }, { Weight: 30, Service: "b" }] },
      "the sum of all split weights must be 100, not 90.000000",
    ],
    ["no splits", { Kind: "service-splitter", Name: "w" }, "no splits configured"],
    [
      "a split destination twice",
      { Kind: "service-splitter", Name: "w", Splits: [{ Weight: 50 }, { Weight: 50, Service: "w" }] },
      'split destination occurs more than once: service="w", subset="", namespace="", partition=""',
    ],
    [
      "redirect with failover",
      {
        Kind: "service-resolver",
        Name: "w",
        Redirect: { Service: "a" },
        Failover: { "*": { Datacenters: ["dc2"] } },
      },
      "Redirect and Failover cannot both be set",
    ],
    [
      "an invalid subset filter",
      { Kind: "service-resolver", Name: "w", Subsets: { v1: { Filter: "Service.Meta.version ===" } } },
      'Filter for subset "v1" is not a valid expression',
    ],
    [
      "a default subset that does not exist",
      { Kind: "service-resolver", Name: "w", DefaultSubset: "v9" },
      'DefaultSubset "v9" is not a valid subset',
    ],
    [
      "an invalid subset name",
      { Kind: "service-resolver", Name: "w", Subsets: { V_1: {} } },
      'Subset "V_1" is invalid',
    ],
    [
      "an empty failover",
      { Kind: "service-resolver", Name: "w", Failover: { "*": {} } },
      'Bad Failover["*"]: one of',
    ],
    [
      "a route path without a slash",
      { Kind: "service-router", Name: "w", Routes: [{ Match: { HTTP: { PathPrefix: "admin" } } }] },
      `Route[0] PathPrefix doesn't start with '/': "admin"`,
    ],
    [
      "two path matches on one route",
      {
        Kind: "service-router",
        Name: "w",
        Routes: [{ Match: { HTTP: { PathExact: "/a", PathPrefix: "/b" } } }],
      },
      "Route[0] should only contain at most one of PathExact, PathPrefix, or PathRegex",
    ],
    [
      "a prefix rewrite without a path match",
      { Kind: "service-router", Name: "w", Routes: [{ Destination: { PrefixRewrite: "/" } }] },
      "Route[0] cannot make use of PrefixRewrite without configuring either PathExact or PathPrefix",
    ],
    [
      "proxy-defaults not named global",
      { Kind: "proxy-defaults", Name: "mine" },
      'invalid name ("mine"), only "global" is supported',
    ],
    [
      "a wildcard service-defaults",
      { Kind: "service-defaults", Name: "*" },
      "service-defaults name must be the name of a service, and not a wildcard",
    ],
    [
      "upstream config with a destination",
      {
        Kind: "service-defaults",
        Name: "w",
        UpstreamConfig: {},
        Destination: { Addresses: ["a.b"], Port: 80 },
      },
      "UpstreamConfig and Destination are mutually exclusive for service defaults",
    ],
    [
      "an intention without an action",
      { Kind: "service-intentions", Name: "db", Sources: [{ Name: "web" }] },
      "Sources[0].Action must be set to 'allow' or 'deny'",
    ],
    [
      "an intention source twice",
      {
        Kind: "service-intentions",
        Name: "db",
        Sources: [
          { Name: "web", Action: "allow" },
          { Name: "web", Action: "deny" },
        ],
      },
      'Sources[1] defines "web" more than once',
    ],
    [
      "a tcp ingress listener with two services",
      {
        Kind: "ingress-gateway",
        Name: "i",
        Listeners: [{ Port: 1, Services: [{ Name: "a" }, { Name: "b" }] }],
      },
      "Multiple services per listener are only supported for L7 protocols",
    ],
    [
      "two ingress listeners on one port",
      {
        Kind: "ingress-gateway",
        Name: "i",
        Listeners: [
          { Port: 1, Services: [{ Name: "a" }] },
          { Port: 1, Services: [{ Name: "b" }] },
        ],
      },
      "port 1 declared on two listeners",
    ],
    [
      "a terminating service with a key but no cert",
      { Kind: "terminating-gateway", Name: "t", Services: [{ Name: "a", KeyFile: "/k" }] },
      'Service "a" must have a CertFile and a KeyFile specified for TLS origination',
    ],
  ])("refuses %s", (_name, body, reason) => {
    const message = refusal(body);
    expect(message).toContain(reason);
    expect(message).not.toMatch(/[\r\n]/);
  });

  it("counts weights in hundredths of a percent, so float sums within that tolerance pass", () => {
    expect(() =>
      parse({
        Kind: "service-splitter",
        Name: "w",
        Splits: [{ Weight: 70.1 }, { Weight: 19.95, Service: "b" }, { Weight: 9.95, Service: "c" }],
      }),
    ).not.toThrow();
    expect(refusal({ Kind: "service-splitter", Name: "w", Splits: [{ Weight: 99.9 }] })).toBe(
      "the sum of all split weights must be 100, not 99.900000",
    );
  });
});
