import { describe, expect, it } from "vitest";
import {
  compileFilter,
  describeSchema,
  FilterError,
  type FilterSchema,
  filterSchemas,
  MATCH_OPERATORS,
  type MatchOperator,
} from "../../src/index.js";

const STRING = "Equal, Not Equal, In, Not In, Matches, Not Matches";
const SCALAR = "Equal, Not Equal";
const MAP = "Is Empty, Is Not Empty, In, Not In";
const STRUCT_LIST = "Is Empty, Is Not Empty";
const TAGS = "In, Not In, Is Empty, Is Not Empty";

/** Rows of an endpoint's selector table: [operation set, comma-separated selectors]. */
type Table = readonly (readonly [string, string])[];

/** Spec 2, "Filter expressions", rows for `nodes`. */
const nodesTable: Table = [
  [STRING, "Address, Datacenter, ID, Node, Meta.<any>, TaggedAddresses.<any>"],
  [MAP, "Meta, TaggedAddresses"],
];

/** Spec 2, rows for `service`. */
const serviceTable: Table = [
  [
    STRING,
    "Address, Datacenter, ID, Node, NodeMeta.<any>, ServiceAddress, ServiceID, ServiceKind, ServiceMeta.<any>, ServiceName, ServiceProxy.DestinationServiceID, ServiceProxy.DestinationServiceName, ServiceProxy.LocalServiceAddress, ServiceProxy.MeshGateway.Mode, ServiceProxy.Upstreams.Datacenter, ServiceProxy.Upstreams.DestinationName, ServiceProxy.Upstreams.DestinationNamespace, ServiceProxy.Upstreams.DestinationType, ServiceProxy.Upstreams.LocalBindAddress, ServiceProxy.Upstreams.MeshGateway.Mode, ServiceTaggedAddresses.<any>.Address, TaggedAddresses.<any>",
  ],
  [
    SCALAR,
    "ServiceConnect.Native, ServiceEnableTagOverride, ServicePort, ServiceProxy.LocalServicePort, ServiceProxy.Upstreams.LocalBindPort, ServiceTaggedAddresses.<any>.Port, ServiceWeights.Passing, ServiceWeights.Warning",
  ],
  [MAP, "NodeMeta, ServiceMeta, ServiceTaggedAddresses, TaggedAddresses"],
  [STRUCT_LIST, "ServiceProxy.Upstreams"],
  [TAGS, "ServiceTags"],
];

/**
 * Spec 2, rows for the node's services, then the rows the spec leaves out ("the first after Proxy.Upstreams
 * is Proxy.Upstreams.Datacenter"), taken from Consul's documentation of `/catalog/node/:node`, without the
 * selectors newer than the spec's service table (Proxy.Mode, Proxy.TransparentProxy.*).
 */
const nodeServiceTable: Table = [
  [
    STRING,
    "Address, ID, Kind, Meta.<any>, Proxy.DestinationServiceID, Proxy.DestinationServiceName, Proxy.LocalServiceAddress, Proxy.MeshGateway.Mode",
  ],
  [SCALAR, "Connect.Native, EnableTagOverride, Port, Proxy.LocalServicePort"],
  [MAP, "Meta"],
  [STRUCT_LIST, "Proxy.Upstreams"],
  [
    STRING,
    "Proxy.Upstreams.Datacenter, Proxy.Upstreams.DestinationName, Proxy.Upstreams.DestinationNamespace, Proxy.Upstreams.DestinationType, Proxy.Upstreams.LocalBindAddress, Proxy.Upstreams.MeshGateway.Mode, Service, TaggedAddresses.<any>.Address",
  ],
  [SCALAR, "Proxy.Upstreams.LocalBindPort, TaggedAddresses.<any>.Port, Weights.Passing, Weights.Warning"],
  [MAP, "TaggedAddresses"],
  [TAGS, "Tags"],
];

/** Consul's documentation of `/health/node`, `/health/checks`, `/health/state` and `/agent/checks`. */
const checkTable: Table = [
  [STRING, "CheckID, Name, Node, Notes, Output, ServiceID, ServiceName, Status"],
  [TAGS, "ServiceTags"],
];

function prefixed(prefix: string, table: Table): Table {
  return table.map(([ops, selectors]) => [
    ops,
    selectors
      .split(", ")
      .map((selector) => `${prefix}.${selector}`)
      .join(", "),
  ]);
}

/** Consul's documentation of `/health/service/:service`: the node, service and check tables under their keys. */
const healthServiceTable: Table = [
  ...prefixed("Node", nodesTable),
  ...prefixed("Service", nodeServiceTable),
  [STRUCT_LIST, "Checks"],
  ...prefixed("Checks", checkTable),
];

function expected(table: Table): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [ops, selectors] of table) {
    for (const selector of selectors.split(", ")) {
      expect(out.has(selector), `${selector} listed twice`).toBe(false);
      out.set(selector, new Set(ops.split(", ")));
    }
  }
  return out;
}

const endpoints: readonly [string, FilterSchema, Table][] = [
  ["nodes", filterSchemas.nodes, nodesTable],
  ["service", filterSchemas.service, serviceTable],
  ["node services", filterSchemas.nodeService, nodeServiceTable],
  ["health service", filterSchemas.healthService, healthServiceTable],
  ["checks", filterSchemas.check, checkTable],
];

/** An expression using `operator` on `selector` with a value every selector type accepts ("1"). */
function expressionFor(selector: string, operator: MatchOperator): string {
  const sel = selector.replaceAll("<any>", "k");
  switch (operator) {
    case "Equal":
      return `${sel} == "1"`;
    case "Not Equal":
      return `${sel} != "1"`;
    case "In":
      return `"1" in ${sel}`;
    case "Not In":
      return `${sel} not contains "1"`;
    case "Is Empty":
      return `${sel} is empty`;
    case "Is Not Empty":
      return `${sel} is not empty`;
    case "Matches":
      return `${sel} matches "1"`;
    case "Not Matches":
      return `${sel} not matches "1"`;
  }
}

describe.each(endpoints)("filter schema for %s", (_name, schema, table) => {
  const rows = expected(table);

  it("has exactly the table's selectors, each with exactly its operations", () => {
    const actual = new Map(
      describeSchema(schema).map((row) => [row.selector, new Set<string>(row.operators)]),
    );
    expect(actual).toEqual(rows);
  });

  const cases = [...rows].flatMap(([selector, allowed]) =>
    MATCH_OPERATORS.map((operator) => [selector, operator, allowed.has(operator)] as const),
  );

  it.each(cases)("%s %s allowed: %s", (selector, operator, allowed) => {
    const expression = expressionFor(selector, operator);
    if (allowed) {
      expect(() => compileFilter(expression, schema)).not.toThrow();
      return;
    }
    expect(() => compileFilter(expression, schema)).toThrow(FilterError);
    expect(() => compileFilter(expression, schema)).toThrow(
      `Invalid match operator "${operator}" for selector "${selector.replaceAll("<any>", "k")}"`,
    );
  });

  it("refuses selectors the table does not list", () => {
    for (const selector of [
      "Bogus",
      "Meta.k.deeper",
      "Node.Bogus",
      "Service.Proxy.Mode",
      "ServiceProxy.Mode",
    ]) {
      if (rows.has(selector)) continue;
      expect(() => compileFilter(`${selector} == "1"`, schema)).toThrow(/Selector ".*" is not valid/);
    }
  });
});
