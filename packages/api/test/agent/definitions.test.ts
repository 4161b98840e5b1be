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
    [{ Name: "a", Check: { TCP: "x:1" } }, "Must provide TTL"],
    [{ Name: "a", Check: { TTL: "soon" } }, 'invalid duration "soon"'],
    [{ Name: "a", Port: "eighty" }, "Request decode failed: Port"],
  ])("refuses %j", (body, reason) => {
    expect(() => parseServiceDefinition(body)).toThrow(DefinitionError);
    expect(() => parseServiceDefinition(body)).toThrow(reason);
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
