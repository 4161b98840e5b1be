import { describe, expect, it } from "vitest";
import {
  BOX_HEIGHT,
  BOX_WIDTH,
  type CompiledChain,
  layoutChain,
  routeLabel,
} from "../src/views/discovery-chain/layout.js";

const defaultChain: CompiledChain = {
  ServiceName: "web",
  Protocol: "tcp",
  StartNode: "resolver:web.default.default.dc1",
  Nodes: {
    "resolver:web.default.default.dc1": {
      Type: "resolver",
      Name: "web.default.default.dc1",
      Resolver: { Default: true, ConnectTimeout: "5s", Target: "web.default.default.dc1" },
    },
  },
  Targets: {
    "web.default.default.dc1": { ID: "web.default.default.dc1", Service: "web", Datacenter: "dc1" },
  },
};

const routedChain: CompiledChain = {
  ServiceName: "web",
  Protocol: "http",
  StartNode: "router:web.default.default",
  Nodes: {
    "router:web.default.default": {
      Type: "router",
      Name: "web.default.default",
      Routes: [
        {
          Definition: { Match: { HTTP: { PathPrefix: "/admin" } } },
          NextNode: "resolver:admin.default.default.dc1",
        },
        { Definition: { Match: null }, NextNode: "splitter:web.default.default" },
      ],
    },
    "splitter:web.default.default": {
      Type: "splitter",
      Name: "web.default.default",
      Splits: [
        { Weight: 90, NextNode: "resolver:v1.web.default.default.dc1" },
        { Weight: 10, NextNode: "resolver:v2.web.default.default.dc1" },
      ],
    },
    "resolver:admin.default.default.dc1": {
      Type: "resolver",
      Name: "admin.default.default.dc1",
      Resolver: { Target: "admin.default.default.dc1", Failover: { Targets: ["admin.default.default.dc2"] } },
    },
    "resolver:v1.web.default.default.dc1": {
      Type: "resolver",
      Name: "v1.web.default.default.dc1",
      Resolver: { Target: "v1.web.default.default.dc1" },
    },
    "resolver:v2.web.default.default.dc1": {
      Type: "resolver",
      Name: "v2.web.default.default.dc1",
      Resolver: { Target: "v2.web.default.default.dc1" },
    },
  },
  Targets: {
    "admin.default.default.dc1": { ID: "admin.default.default.dc1", Service: "admin", Datacenter: "dc1" },
    "admin.default.default.dc2": { ID: "admin.default.default.dc2", Service: "admin", Datacenter: "dc2" },
    "v1.web.default.default.dc1": {
      ID: "v1.web.default.default.dc1",
      Service: "web",
      ServiceSubset: "v1",
      Datacenter: "dc1",
    },
    "v2.web.default.default.dc1": {
      ID: "v2.web.default.default.dc1",
      Service: "web",
      ServiceSubset: "v2",
      Datacenter: "dc1",
    },
  },
};

describe("layoutChain", () => {
  it("draws the default chain as one resolver and its target", () => {
    const l = layoutChain(defaultChain);
    expect(l.boxes.map((b) => [b.kind, b.label, b.x, b.y])).toEqual([
      ["resolver", "web.default.default.dc1", 0, 0],
      ["target", "web", BOX_WIDTH + 90, 0],
    ]);
    expect(l.edges).toHaveLength(1);
    expect(l.edges[0]).toMatchObject({
      kind: "target",
      x1: BOX_WIDTH,
      y1: BOX_HEIGHT / 2,
      x2: BOX_WIDTH + 90,
    });
    expect(l.width).toBe(2 * BOX_WIDTH + 90);
    expect(l.height).toBe(BOX_HEIGHT);
  });

  it("puts routers, splitters, resolvers and targets in columns, in walk order", () => {
    const l = layoutChain(routedChain);
    const columns = new Map<string, number>();
    for (const b of l.boxes) columns.set(b.kind, b.x);
    expect([...columns.keys()]).toEqual(["router", "splitter", "resolver", "target"]);
    expect(new Set(columns.values()).size).toBe(4);
    const resolvers = l.boxes.filter((b) => b.kind === "resolver").map((b) => b.label);
    expect(resolvers).toEqual([
      "admin.default.default.dc1",
      "v1.web.default.default.dc1",
      "v2.web.default.default.dc1",
    ]);
    const targets = l.boxes.filter((b) => b.kind === "target").map((b) => `${b.label} ${b.detail}`);
    expect(targets).toEqual([
      "admin datacenter dc1",
      "admin datacenter dc2",
      "web (v1) datacenter dc1",
      "web (v2) datacenter dc1",
    ]);
    expect(l.edges.map((e) => `${e.kind}:${e.label}`)).toEqual([
      "route:path /admin*",
      "route:default",
      "target:",
      "failover:failover",
      "split:90%",
      "split:10%",
      "target:",
      "target:",
    ]);
    for (const e of l.edges) expect(e.x2).toBeGreaterThan(e.x1);
    expect(l.height).toBe(4 * BOX_HEIGHT + 3 * 24);
  });

  it("tolerates a missing target and empty nodes", () => {
    const l = layoutChain({
      ServiceName: "x",
      Protocol: "tcp",
      StartNode: "resolver:x",
      Nodes: { "resolver:x": { Type: "resolver", Name: "x", Resolver: { Target: "gone" } } },
      Targets: null,
    });
    expect(l.boxes.map((b) => b.detail)).toEqual(["resolver", "unknown target"]);
    expect(layoutChain({ ServiceName: "x", Protocol: "tcp", StartNode: "", Nodes: null }).boxes).toEqual([]);
  });
});

describe("routeLabel", () => {
  it("summarises a route's match", () => {
    expect(routeLabel({ NextNode: "n" })).toBe("default");
    expect(
      routeLabel({
        Definition: { Match: { HTTP: { PathExact: "/a", Methods: ["GET", "PUT"] } } },
        NextNode: "n",
      }),
    ).toBe("path = /a, GET|PUT");
  });
});
