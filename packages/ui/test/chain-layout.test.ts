import { describe, expect, it } from "vitest";
import {
  BOX_HEIGHT,
  BOX_WIDTH,
  type CompiledChain,
  GAP_X,
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
      ["target", "web", BOX_WIDTH + GAP_X, 0],
    ]);
    expect(l.edges).toHaveLength(1);
    expect(l.edges[0]).toMatchObject({
      kind: "target",
      x1: BOX_WIDTH,
      y1: BOX_HEIGHT / 2,
      x2: BOX_WIDTH + GAP_X,
    });
    expect(l.width).toBe(2 * BOX_WIDTH + GAP_X);
    expect(l.height).toBe(BOX_HEIGHT);
  });

  it("puts routers, splitters, resolvers and targets in columns, each box on its first child's row", () => {
    const l = layoutChain(routedChain);
    const column = (kind: string) => new Set(l.boxes.filter((b) => b.kind === kind).map((b) => b.x));
    expect([...column("router"), ...column("splitter"), ...column("resolver"), ...column("target")]).toEqual([
      0,
      BOX_WIDTH + GAP_X,
      2 * (BOX_WIDTH + GAP_X),
      3 * (BOX_WIDTH + GAP_X),
    ]);
    const row = (label: string, kind: string) => {
      const b = l.boxes.find((x) => x.label === label && x.kind === kind);
      return b === undefined ? undefined : b.y / (BOX_HEIGHT + 24);
    };
    expect(row("web.default.default", "router")).toBe(0);
    expect(row("admin.default.default.dc1", "resolver")).toBe(0);
    expect(row("web.default.default", "splitter")).toBe(2);
    expect(row("v1.web.default.default.dc1", "resolver")).toBe(2);
    expect(row("v2.web.default.default.dc1", "resolver")).toBe(3);
    const targets = l.boxes
      .filter((b) => b.kind === "target")
      .map((b) => [b.label, b.detail, b.y / (BOX_HEIGHT + 24)]);
    expect(targets).toEqual([
      ["admin", "datacenter dc1", 0],
      ["admin", "datacenter dc2", 1],
      ["web (v1)", "datacenter dc1", 2],
      ["web (v2)", "datacenter dc1", 3],
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
    // The route straight to a resolver skips the splitter column on a row where no splitter sits.
    const skip = l.edges[0];
    expect(skip?.y1).toBe(skip?.y2);
    expect(l.boxes.some((b) => b.kind === "splitter" && b.y + BOX_HEIGHT / 2 === skip?.y1)).toBe(false);
    for (const e of l.edges) expect(e.x2).toBeGreaterThan(e.x1);
    expect(l.height).toBe(4 * BOX_HEIGHT + 3 * 24);
  });

  it("moves a box whose first child's row is taken in its column to a new row", () => {
    const shared: CompiledChain = {
      ServiceName: "s",
      Protocol: "http",
      StartNode: "router:s",
      Nodes: {
        "router:s": {
          Type: "router",
          Name: "s",
          Routes: [{ NextNode: "splitter:a" }, { NextNode: "splitter:b" }],
        },
        "splitter:a": { Type: "splitter", Name: "a", Splits: [{ Weight: 100, NextNode: "resolver:r" }] },
        "splitter:b": { Type: "splitter", Name: "b", Splits: [{ Weight: 100, NextNode: "resolver:r" }] },
        "resolver:r": { Type: "resolver", Name: "r", Resolver: { Target: "r" } },
      },
      Targets: { r: { ID: "r", Service: "r", Datacenter: "dc1" } },
    };
    const ys = layoutChain(shared)
      .boxes.filter((b) => b.kind === "splitter")
      .map((b) => b.y);
    expect(new Set(ys).size).toBe(2);
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
