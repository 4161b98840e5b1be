import { describe, expect, it } from "vitest";
import { compileFilter, FilterError, field, filterSchemas } from "../../src/index.js";

const { string, bool, int, map, list, struct } = field;

/** Covers every selector class: scalars, maps of scalars and of structs, lists of scalars and of structs. */
const schema = struct({
  Name: string,
  Port: int,
  Enabled: bool,
  Meta: map(string),
  Tags: list(string),
  Ports: list(int),
  Addresses: map(struct({ Address: string, Port: int })),
  Proxy: struct({
    Mode: string,
    Upstreams: list(struct({ Name: string, Port: int, Gateway: struct({ Mode: string }) })),
  }),
});

const web = {
  Name: "web-1",
  Port: 8080,
  Enabled: true,
  Meta: { env: "prod", "my key": "v", empty: "" },
  Tags: ["v1", "primary"],
  Ports: [80, 443],
  Addresses: { lan: { Address: "10.0.0.1", Port: 80 } },
  Proxy: {
    Mode: "transparent",
    Upstreams: [
      { Name: "db", Port: 5432, Gateway: { Mode: "local" } },
      { Name: "cache", Port: 6379, Gateway: { Mode: "remote" } },
    ],
  },
};
/** Every field missing: each reads as its zero value. */
const bare = {};

function accepts(expression: string, record: unknown): boolean {
  return compileFilter(expression, schema)(record);
}

describe("filter evaluation: scalars", () => {
  it.each([
    ['Name == "web-1"', true, false],
    ['Name != "web-1"', false, true],
    ['Name == ""', false, true],
    ['"web" in Name', true, false],
    ['Name contains "eb-"', true, false],
    ['"" in Name', true, true],
    ['"web" not in Name', false, true],
    ['Name not contains "x"', true, true],
    ['Name matches "^web-[0-9]+$"', true, false],
    ['Name matches "WEB"', false, false],
    ['Name matches "(?i)WEB"', true, false],
    ['Name matches "^$"', false, true],
    ['Name not matches "^web"', false, true],
    ["Port == 8080", true, false],
    ['Port == "8080"', true, false],
    ['Port == "0x1F90"', true, false],
    ['Port == "0o17_620"', true, false],
    ['Port == "+8080"', true, false],
    ["Port == 0", false, true],
    ["Port != 8080", false, true],
    ["Enabled == true", true, false],
    ["Enabled == T", true, false],
    ["Enabled == 0", false, true],
    ["Enabled != false", true, false],
  ])("%s", (expression, onWeb, onBare) => {
    expect(accepts(expression, web)).toBe(onWeb);
    expect(accepts(expression, bare)).toBe(onBare);
  });
});

describe("filter evaluation: maps", () => {
  it.each([
    ['Meta.env == "prod"', true, false],
    ['Meta["env"] == prod', true, false],
    ['Meta["my key"] == "v"', true, false],
    ['Meta.env != "prod"', false, true],
    ['Meta.missing == ""', false, false],
    ['Meta.missing != "x"', true, true],
    ['"p" in Meta.missing', false, false],
    ['"p" not in Meta.missing', true, true],
    ['Meta.missing matches ".*"', false, false],
    ['Meta.missing not matches ".*"', true, true],
    ['Meta.env matches "^pr"', true, false],
    ['"ro" in Meta.env', true, false],
    ['Meta.empty == ""', true, false],
    ['"env" in Meta', true, false],
    ['"prod" in Meta', false, false],
    ['Meta contains "my key"', true, false],
    ['"env" not in Meta', false, true],
    ['"constructor" in Meta', false, false],
    ['Meta.constructor == ""', false, false],
    ['Meta["__proto__"] != "x"', true, true],
    ["Meta is empty", false, true],
    ["Meta is not empty", true, false],
    ['Addresses.lan.Address == "10.0.0.1"', true, false],
    ["Addresses.lan.Port == 80", true, false],
    ["Addresses.wan.Port == 0", false, false],
    ["Addresses.wan.Port != 80", true, true],
    ['"lan" in Addresses', true, false],
    ["Addresses is empty", false, true],
  ])("%s", (expression, onWeb, onBare) => {
    expect(accepts(expression, web)).toBe(onWeb);
    expect(accepts(expression, bare)).toBe(onBare);
  });
});

describe("filter evaluation: lists", () => {
  it.each([
    ['"v1" in Tags', true, false],
    ['Tags contains "primary"', true, false],
    ['"v" in Tags', false, false],
    ['"v1" not in Tags', false, true],
    ["Tags is empty", false, true],
    ["Tags is not empty", true, false],
    ["80 in Ports", true, false],
    ['"443" in Ports', true, false],
    ['Ports contains "0x50"', true, false],
    ["8080 not in Ports", true, true],
    // A selector through a list of structs holds when any element satisfies it.
    ['Proxy.Upstreams.Name == "db"', true, false],
    ['Proxy.Upstreams.Name == "cache"', true, false],
    ['Proxy.Upstreams.Name == "queue"', false, false],
    ['Proxy.Upstreams.Name != "db"', true, false],
    ['Proxy.Upstreams.Name matches "^ca"', true, false],
    ['"ach" in Proxy.Upstreams.Name', true, false],
    ["Proxy.Upstreams.Port == 5432", true, false],
    ['Proxy.Upstreams.Gateway.Mode == "remote"', true, false],
    ['Proxy.Upstreams.Gateway.Mode == ""', false, false],
    ["Proxy.Upstreams is empty", false, true],
    ["Proxy.Upstreams is not empty", true, false],
    ['Proxy.Mode == "transparent"', true, false],
    ['Proxy.Mode == ""', false, true],
  ])("%s", (expression, onWeb, onBare) => {
    expect(accepts(expression, web)).toBe(onWeb);
    expect(accepts(expression, bare)).toBe(onBare);
  });

  it("treats every element on its own, as go-bexpr does (not all elements at once)", () => {
    const record = {
      Proxy: {
        Upstreams: [
          { Name: "db", Port: 1 },
          { Name: "cache", Port: 2 },
        ],
      },
    };
    expect(accepts('Proxy.Upstreams.Name == "db" and Proxy.Upstreams.Port == 2', record)).toBe(true);
    expect(accepts('not Proxy.Upstreams.Name != "db"', record)).toBe(false);
  });
});

describe("filter evaluation: logic", () => {
  it.each([
    ['Name == "web-1" and Port == 8080', true],
    ['Name == "web-1" and Port == 1', false],
    ['Name == "x" or Port == 8080', true],
    ['Name == "x" or Port == 1', false],
    ['not Name == "x"', true],
    ['not Name == "web-1" or Port == 8080', true],
    ['not (Name == "web-1" or Port == 1)', false],
    ['Name == "x" and Port == 1 or Enabled == true', true],
    ['Name == "x" and (Port == 1 or Enabled == true)', false],
    ['not not Name == "web-1"', true],
  ])("%s", (expression, expected) => {
    expect(accepts(expression, web)).toBe(expected);
  });

  it("accepts every record for the empty expression, as an absent filter", () => {
    expect(compileFilter("", schema)(bare)).toBe(true);
  });

  it("evaluates a long or-chain without deep recursion", () => {
    const chain = Array.from({ length: 20_000 }, (_, i) => `Port == ${i + 1}`).join(" or ");
    const filter = compileFilter(chain, schema);
    expect(filter({ Port: 20_000 })).toBe(true);
    expect(filter({ Port: 0 })).toBe(false);
  });

  it("reads odd record shapes as zero values instead of failing", () => {
    const odd = { Name: 5, Port: "80", Enabled: "true", Meta: ["x"], Tags: "v1", Proxy: null, Addresses: 3 };
    for (const expression of [
      'Name == "5"',
      "Port == 0",
      "Enabled == false",
      "Meta is empty",
      "Tags is empty",
      "Proxy.Upstreams is empty",
      'not Proxy.Upstreams.Name == ""',
      "Addresses is empty",
    ]) {
      expect(accepts(expression, odd), expression).toBe(true);
    }
    for (const record of [null, undefined, 42, "x", []]) expect(accepts('Name == ""', record)).toBe(true);
  });
});

describe("filter validation errors", () => {
  function compileError(expression: string): string {
    try {
      compileFilter(expression, schema);
    } catch (error) {
      expect(error).toBeInstanceOf(FilterError);
      return (error as FilterError).message;
    }
    throw new Error(`expected ${expression} to be refused`);
  }

  it.each([
    ['Foo == "x"', 'Selector "Foo" is not valid'],
    ['Name.Sub == "x"', 'Selector "Name.Sub" is not valid'],
    ['Proxy.Nope.Mode == "x"', 'Selector "Proxy.Nope" is not valid'],
    ['Tags.x == "x"', 'Selector "Tags.x" is not valid'],
    ['name == "x"', 'Selector "name" is not valid'],
    ['Proxy == "x"', 'Invalid match operator "Equal" for selector "Proxy"'],
    ["Name is empty", 'Invalid match operator "Is Empty" for selector "Name"'],
    ['Port matches "8"', 'Invalid match operator "Matches" for selector "Port"'],
    ['"8" in Port', 'Invalid match operator "In" for selector "Port"'],
    ['Tags == "v1"', 'Invalid match operator "Equal" for selector "Tags"'],
    ['Tags matches "v"', 'Invalid match operator "Matches" for selector "Tags"'],
    ['Meta == "x"', 'Invalid match operator "Equal" for selector "Meta"'],
    ['"x" in Proxy.Upstreams', 'Invalid match operator "In" for selector "Proxy.Upstreams"'],
    ["Meta.env is empty", 'Invalid match operator "Is Empty" for selector "Meta.env"'],
    ["Port == abc", 'Failed to coerce value "abc" for selector "Port": not an integer'],
    ["Port == 1.5", 'Failed to coerce value "1.5" for selector "Port": not an integer'],
    ["Port == 9223372036854775808", 'Failed to coerce value "9223372036854775808" for selector "Port"'],
    ['"x" in Ports', 'Failed to coerce value "x" for selector "Ports": not an integer'],
    ["Enabled == yes", 'Failed to coerce value "yes" for selector "Enabled": not a boolean'],
    ['Name matches "("', 'Failed to compile regular expression "(": error parsing regexp: missing closing )'],
    ['Name matches "a(?=b)"', "Failed to compile regular expression"],
    ['Name matches "(a)\\\\1"', "Failed to compile regular expression"],
  ])("%s", (expression, message) => {
    expect(compileError(expression)).toContain(message);
  });

  it("validates every branch, not only the ones evaluation would reach", () => {
    expect(compileError('Name == "x" or Bogus == 1')).toBe('Selector "Bogus" is not valid');
  });

  it("matches in linear time: a pathological pattern cannot stall the server", () => {
    const filter = compileFilter('Name matches "^(a+)+$"', schema);
    const started = performance.now();
    expect(filter({ Name: `${"a".repeat(5000)}b` })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("filter over Consul-shaped records", () => {
  it("filters catalog service instances", () => {
    const instances = [
      {
        Node: "n1",
        Address: "10.0.0.1",
        NodeMeta: { rack: "r1" },
        ServiceName: "web",
        ServiceTags: ["v1"],
        ServicePort: 80,
        ServiceProxy: { Upstreams: [{ DestinationName: "db", LocalBindPort: 9191 }] },
        ServiceTaggedAddresses: { lan: { Address: "10.0.0.1", Port: 80 } },
        ServiceWeights: { Passing: 1, Warning: 1 },
        ServiceConnect: {},
      },
      { Node: "n2", Address: "10.0.0.2", ServiceName: "web", ServiceTags: ["v2"], ServicePort: 81 },
    ];
    const pick = (expression: string) =>
      instances.filter(compileFilter(expression, filterSchemas.service)).map((entry) => entry.Node);
    expect(pick('"v1" in ServiceTags')).toEqual(["n1"]);
    expect(pick("ServiceProxy.Upstreams.DestinationName == db")).toEqual(["n1"]);
    expect(pick("ServiceProxy.Upstreams.LocalBindPort == 9191")).toEqual(["n1"]);
    expect(pick("ServiceProxy.Upstreams is empty")).toEqual(["n2"]);
    expect(pick('NodeMeta.rack == "r1" or ServicePort == 81')).toEqual(["n1", "n2"]);
    expect(pick("ServiceTaggedAddresses.lan.Port == 80")).toEqual(["n1"]);
    expect(pick("ServiceConnect.Native == false")).toEqual(["n1", "n2"]);
    expect(pick("ServiceWeights.Passing == 1")).toEqual(["n1"]);
  });

  it("filters health service entries on node, service and checks", () => {
    const entries = [
      {
        Node: { Node: "n1", Meta: { env: "prod" } },
        Service: { Service: "web", Tags: ["v1"], Port: 80 },
        Checks: [
          { CheckID: "serfHealth", Status: "passing" },
          { CheckID: "service:web", Status: "critical", ServiceTags: ["v1"] },
        ],
      },
      {
        Node: { Node: "n2", Meta: {} },
        Service: { Service: "web", Tags: [], Port: 81 },
        Checks: [{ CheckID: "serfHealth", Status: "passing" }],
      },
    ];
    const pick = (expression: string) =>
      entries.filter(compileFilter(expression, filterSchemas.healthService)).map((entry) => entry.Node.Node);
    expect(pick('Checks.Status == "critical"')).toEqual(["n1"]);
    expect(pick('Checks.Status != "passing"')).toEqual(["n1"]);
    expect(pick('"v1" in Checks.ServiceTags')).toEqual(["n1"]);
    expect(pick("Node.Meta is empty")).toEqual(["n2"]);
    expect(pick('Node.Meta.env == "prod" and "v1" in Service.Tags')).toEqual(["n1"]);
    expect(pick("Service.Port == 81")).toEqual(["n2"]);
    expect(pick("Checks is not empty")).toEqual(["n1", "n2"]);
  });
});
