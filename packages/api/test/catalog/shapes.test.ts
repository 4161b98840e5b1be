import { describe, expect, it } from "vitest";
import { onlyPassing } from "../../src/catalog/passing.js";
import { parseNodeMeta, parsePassing } from "../../src/catalog/query.js";
import { definitionJson, encodeShapes, goMap, proxyJson } from "../../src/catalog/shapes.js";

describe("Consul JSON shapes", () => {
  it("Go maps are written with their keys sorted", () => {
    expect(JSON.stringify(goMap({ wan: "b", lan: "a", lan_ipv4: "c" }))).toBe(
      '{"lan":"a","lan_ipv4":"c","wan":"b"}',
    );
    expect(goMap(null)).toEqual({});
  });

  it("ConnectProxyConfig: omitempty fields, upstreams in Consul's field order, MeshGateway and Expose always", () => {
    const json = proxyJson({
      Upstreams: [{ LocalBindPort: 9191, DestinationName: "db", Config: { z: 1, a: { y: 2, b: 3 } } }],
      Config: { protocol: "http", bind: "0.0.0.0" },
      DestinationServiceName: "web",
      LocalServicePort: 0,
    });
    expect(JSON.stringify(json)).toBe(
      '{"DestinationServiceName":"web","Config":{"bind":"0.0.0.0","protocol":"http"},' +
        '"Upstreams":[{"DestinationType":"","DestinationName":"db","Datacenter":"","LocalBindPort":9191,' +
        '"Config":{"a":{"b":3,"y":2},"z":1},"MeshGateway":{}}],"MeshGateway":{},"Expose":{}}',
    );
    expect(JSON.stringify(proxyJson(null))).toBe('{"MeshGateway":{},"Expose":{}}');
  });

  it("HealthCheckDefinition as its MarshalJSON writes it: durations as strings first, TTL in nanoseconds", () => {
    expect(
      JSON.stringify(
        definitionJson({
          TCP: "localhost:22",
          Interval: 10e9,
          Timeout: 0,
          TTL: 15e9,
          DeregisterCriticalServiceAfter: "90m0s",
        }),
      ),
    ).toBe(
      '{"Interval":"10s","DeregisterCriticalServiceAfter":"90m0s","TCP":"localhost:22","TTL":15000000000}',
    );
    expect(definitionJson({})).toEqual({});
  });

  it("encodes integers beyond 2^53 in a free-form config exactly", () => {
    expect(encodeShapes({ Config: { big: 2n ** 64n - 1n } })).toBe('{"Config":{"big":18446744073709551615}}');
    expect(encodeShapes([{ a: 1 }])).toBe('[{"a":1}]');
  });
});

describe("query parameters", () => {
  it("node-meta splits at the first colon; a filter without one matches an empty value", () => {
    const meta = parseNodeMeta(new URLSearchParams("node-meta=a:b:c&node-meta=flag"));
    expect([...(meta ?? [])]).toEqual([
      ["a", "b:c"],
      ["flag", ""],
    ]);
    expect(parseNodeMeta(new URLSearchParams(""))).toBeUndefined();
  });

  it("passing reads as Go's ParseBool, bare means true", () => {
    expect(parsePassing(new URLSearchParams("passing"))).toBe(true);
    expect(parsePassing(new URLSearchParams("passing=1"))).toBe(true);
    expect(parsePassing(new URLSearchParams("passing=F"))).toBe(false);
    expect(parsePassing(new URLSearchParams(""))).toBe(false);
    expect(() => parsePassing(new URLSearchParams("passing=yes"))).toThrow("Invalid value for ?passing");
  });
});

describe("passing filter", () => {
  it("drops entries with any check not passing by moving the last entry into the gap, as Consul does", () => {
    const entry = (id: string, ...statuses: string[]) => ({
      id,
      checks: statuses.map((Status) => ({ Status })),
    });
    const out = onlyPassing([
      entry("a", "critical"),
      entry("b", "passing"),
      entry("c", "passing", "warning"),
      entry("d", "passing"),
      entry("e"),
    ]);
    expect(out.map((e) => e.id)).toEqual(["e", "b", "d"]);
  });
});
