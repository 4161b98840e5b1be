import { describe, expect, it } from "vitest";
import {
  DefinitionError,
  parseCheckDefinition,
  parseServiceDefinition,
} from "../../src/agent/definitions.js";

describe("service definitions", () => {
  it("fills Consul's defaults: ID from Name, weights 1/1, service check IDs and names", () => {
    const def = parseServiceDefinition({
      Name: "web",
      Checks: [{ TTL: "10s" }, { HTTP: "http://x/", Interval: "5s" }],
    });
    expect(def).toMatchObject({
      ID: "web",
      Service: "web",
      Weights: { Passing: 1, Warning: 1 },
      Namespace: "default",
    });
    expect(def.Checks.map((c) => [c.CheckID, c.Name, c.Kind, c.ServiceID])).toEqual([
      ["service:web:1", "Service 'web' check", "ttl", "web"],
      ["service:web:2", "Service 'web' check", "http", "web"],
    ]);
    expect(parseServiceDefinition({ Name: "db", Check: { TTL: "1s" } }).Checks[0]?.CheckID).toBe(
      "service:db",
    );
  });

  it("reads snake_case and any letter case, leaving Meta keys as written", () => {
    const def = parseServiceDefinition({
      name: "web",
      ENABLE_TAG_OVERRIDE: true,
      meta: { some_key: "v" },
      tagged_addresses: { lan_ipv4: { address: "10.0.0.1", port: 80 } },
      check: {
        args: ["/bin/check"],
        interval: "10s",
        deregister_critical_service_after: "1m",
        tls_skip_verify: true,
      },
    });
    expect(def.EnableTagOverride).toBe(true);
    expect(def.Meta).toEqual({ some_key: "v" });
    expect(def.TaggedAddresses).toEqual({ lan_ipv4: { Address: "10.0.0.1", Port: 80 } });
    expect(def.Checks[0]).toMatchObject({
      Kind: "script",
      ScriptArgs: ["/bin/check"],
      IntervalNs: 10e9,
      DeregisterCriticalServiceAfterNs: 60e9,
      TLSSkipVerify: true,
    });
  });

  it.each([
    [{ Port: 1 }, "Missing service name"],
    [{ Name: "a", Address: "::" }, "Invalid service address"],
    [{ Name: "a", Weights: { Passing: 0, Warning: 1 } }, "Invalid Weights"],
    [{ Name: "a", Check: { TCP: "x:1" } }, "Invalid check: Interval must be > 0"],
    [{ Name: "a", Check: { TTL: "soon" } }, 'invalid duration "soon"'],
    [{ Name: "a", Port: "eighty" }, "Request decode failed: Port"],
    // What the catalog endpoint would refuse when anti-entropy registers it there.
    [
      { Name: "p", Kind: "connect-proxy", Port: 1 },
      "Validation failed: Proxy.DestinationServiceName must be non-empty for Connect proxy services",
    ],
    [
      { Name: "p", Kind: "connect-proxy", Proxy: { DestinationServiceName: "web" } },
      "Validation failed: Port or SocketPath must be set for a Connect proxy",
    ],
    [{ Name: "p", Proxy: { Upstreams: "db" } }, "Validation failed: Request decode failed: Proxy.Upstreams"],
  ])("refuses %j", (body, reason) => {
    expect(() => parseServiceDefinition(body)).toThrow(DefinitionError);
    expect(() => parseServiceDefinition(body)).toThrow(reason);
  });

  it("keeps Proxy and Connect as the catalog stores them: its field names, no null members", () => {
    const def = parseServiceDefinition({
      name: "web-sidecar",
      kind: "connect-proxy",
      port: 21000,
      proxy: {
        destination_service_name: "web",
        config: null,
        upstreams: [{ destination_name: "db", local_bind_port: 9191, config: { connect_timeout_ms: 500 } }],
      },
      connect: null,
    });
    expect(def.Proxy).toEqual({
      DestinationServiceName: "web",
      Upstreams: [{ DestinationName: "db", LocalBindPort: 9191, Config: { connect_timeout_ms: 500 } }],
    });
    expect(def.Connect).toBeNull();
    // Weights the catalog ignores (beyond a DNS SRV weight) are the default there, and so here.
    expect(parseServiceDefinition({ Name: "w", Weights: { Passing: 70000, Warning: 1 } }).Weights).toEqual({
      Passing: 1,
      Warning: 1,
    });
  });
});

describe("check definitions", () => {
  it("CheckID or ID, else Name; durations as Go durations or nanoseconds", () => {
    expect(parseCheckDefinition({ Name: "n", TTL: "1m" }).CheckID).toBe("n");
    expect(parseCheckDefinition({ Name: "n", ID: "i", TTL: 5e9 }).TtlNs).toBe(5e9);
    expect(parseCheckDefinition({ Name: "n", CheckID: "c", TCP: "h:1", Interval: "1m30s" })).toMatchObject({
      CheckID: "c",
      Kind: "tcp",
      IntervalNs: 90e9,
    });
  });

  it("refuses a check without a name or with an unknown status", () => {
    expect(() => parseCheckDefinition({ TTL: "1s" })).toThrow("Missing check name");
    expect(() => parseCheckDefinition({ Name: "n", TTL: "1s", Status: "ok" })).toThrow("Bad check status");
  });
});

describe("check kinds beyond HTTP, TCP, TTL and script", () => {
  it("reads gRPC, H2PING, UDP, Docker and alias checks with Consul's Type names and fields", () => {
    expect(
      parseCheckDefinition({ Name: "g", GRPC: "127.0.0.1:9000/api", grpc_use_tls: true, Interval: "5s" }),
    ).toMatchObject({ Kind: "grpc", GRPC: "127.0.0.1:9000/api", GRPCUseTLS: true });
    expect(parseCheckDefinition({ Name: "h", H2PING: "localhost:8443", Interval: "5s" })).toMatchObject({
      Kind: "h2ping",
      H2PingUseTLS: true,
    });
    expect(
      parseCheckDefinition({ Name: "h", H2PING: "localhost:8080", h2ping_use_tls: false, Interval: "5s" }),
    ).toMatchObject({ Kind: "h2ping", H2PingUseTLS: false });
    expect(parseCheckDefinition({ Name: "u", UDP: "10.0.0.1:53", Interval: "5s" }).Kind).toBe("udp");
    expect(
      parseCheckDefinition({
        Name: "d",
        docker_container_id: "f972c95ebf0e",
        Shell: "/bin/bash",
        Args: ["/bin/check"],
        Interval: "5s",
      }),
    ).toMatchObject({ Kind: "docker", DockerContainerID: "f972c95ebf0e", Shell: "/bin/bash" });
    expect(parseCheckDefinition({ Name: "a", alias_service: "web" })).toMatchObject({
      Kind: "alias",
      AliasService: "web",
      AliasNode: "",
    });
    expect(parseCheckDefinition({ Name: "a", AliasNode: "n2" }).Kind).toBe("alias");
  });

  it("defaults FailuresBeforeWarning to FailuresBeforeCritical", () => {
    const def = parseCheckDefinition({ Name: "t", TCP: "h:1", Interval: "1s", FailuresBeforeCritical: 3 });
    expect(def).toMatchObject({ FailuresBeforeCritical: 3, FailuresBeforeWarning: 3 });
    const warned = parseCheckDefinition({
      Name: "t",
      TCP: "h:1",
      Interval: "1s",
      failures_before_critical: 3,
      failures_before_warning: 1,
    });
    expect(warned).toMatchObject({ FailuresBeforeCritical: 3, FailuresBeforeWarning: 1 });
  });

  it("ignores an empty Check in a service definition, as Consul does", () => {
    expect(parseServiceDefinition({ Name: "web", Check: {} }).Checks).toEqual([]);
  });

  it.each([
    [
      { GRPC: "127.0.0.1:9000", HTTP: "http://x/", Interval: "1s" },
      "Only one of HTTP, TCP, UDP, GRPC, H2PING or ScriptArgs may be set; got HTTP and GRPC",
    ],
    [
      { UDP: "h:1", TCP: "h:2", Interval: "1s" },
      "Only one of HTTP, TCP, UDP, GRPC, H2PING or ScriptArgs may be set; got TCP and UDP",
    ],
    [
      { GRPC: "127.0.0.1:9000" },
      "Interval must be > 0 for Script, HTTP, H2PING, TCP, UDP or GRPC checks (GRPC is set)",
    ],
    [{ H2PING: "h:1", TTL: "10s", Interval: "1s" }, "Interval and TTL cannot both be specified"],
    [
      { AliasService: "web", HTTP: "http://x/", Interval: "1s" },
      "Interval cannot be set for Alias checks (HTTP is set)",
    ],
    [{ AliasService: "web", TTL: "10s" }, "TTL must be not be set for Alias checks"],
    [{ DockerContainerID: "abc", Interval: "1s" }, "DockerContainerID needs ScriptArgs"],
    [{ UDP: "nohost", Interval: "1s" }, 'UDP must be host:port, not "nohost"'],
    [{ H2PING: "h:99999", Interval: "1s" }, 'H2PING must be host:port, not "h:99999"'],
    [{ GRPC: "h/svc", Interval: "1s" }, 'GRPC must be host:port or host:port/service, not "h/svc"'],
    [
      { TCP: "h:1", Interval: "1s", FailuresBeforeWarning: 3, FailuresBeforeCritical: 2 },
      "FailuresBeforeWarning can't be higher than FailuresBeforeCritical",
    ],
    [{ Notes: "nothing to run" }, "TTL must be > 0 for TTL checks"],
  ])("refuses %j naming what is wrong", (check, reason) => {
    expect(() => parseCheckDefinition({ Name: "c", ...check })).toThrow(DefinitionError);
    expect(() => parseCheckDefinition({ Name: "c", ...check })).toThrow(`Invalid check: ${reason}`);
    expect(() => parseServiceDefinition({ Name: "s", Check: check })).toThrow(`Invalid check: ${reason}`);
  });
});
