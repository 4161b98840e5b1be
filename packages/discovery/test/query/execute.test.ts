import { Prng } from "@cairn/testkit";
import { describe, expect, it } from "vitest";
import {
  type Coordinate,
  planFailover,
  type QueryCandidate,
  type ServiceQuery,
  selectQueryNodes,
} from "../../src/index.js";

interface Candidate extends QueryCandidate {
  readonly id: string;
}

const query = (over: Partial<ServiceQuery> = {}): ServiceQuery => ({
  Service: "db",
  Failover: { NearestN: 0, Datacenters: null },
  IgnoreCheckIDs: null,
  OnlyPassing: false,
  Near: "",
  Tags: null,
  NodeMeta: null,
  ServiceMeta: null,
  Connect: false,
  ...over,
});

const candidate = (
  id: string,
  checks: Record<string, string>,
  extra: { tags?: string[]; nodeMeta?: Record<string, string>; meta?: Record<string, string> } = {},
): Candidate => ({
  id,
  node: { Node: id, Meta: extra.nodeMeta ?? {} },
  service: { Tags: extra.tags ?? [], Meta: extra.meta ?? {} },
  checks: Object.entries(checks).map(([CheckID, Status]) => ({ CheckID, Status })),
});

/** The test kit's seeded PRNG as a `() => number`, so shuffles replay. */
function prng(seed: number): () => number {
  const p = new Prng(seed);
  return () => p.next();
}

const coords = new Map<string, Coordinate>();
const at = (x: number): Coordinate => ({ Vec: [x, 0, 0, 0, 0, 0, 0, 0], Error: 0, Adjustment: 0, Height: 0 });

const ids = (
  service: ServiceQuery,
  cands: readonly Candidate[],
  extra: { limit?: number; near?: string } = {},
) =>
  selectQueryNodes(service, cands, {
    random: prng(7),
    origin: extra.near ? coords.get(extra.near) : undefined,
    originNode: extra.near,
    coordinateOf: (c) => coords.get(c.node.Node),
    limit: extra.limit ?? 0,
  })
    .map((c) => c.id)
    .sort();

const mixed = [
  candidate("pass", { serfHealth: "passing", "service:db": "passing" }),
  candidate("warn", { serfHealth: "passing", "service:db": "warning" }),
  candidate("crit", { serfHealth: "passing", "service:db": "critical" }),
  candidate("node-crit", { serfHealth: "critical", "service:db": "passing" }),
  candidate("no-checks", {}),
];

describe("prepared query execution: health", () => {
  it("passing or warning by default; critical anywhere excludes", () => {
    expect(ids(query(), mixed)).toEqual(["no-checks", "pass", "warn"]);
  });

  it("OnlyPassing keeps only passing", () => {
    expect(ids(query({ OnlyPassing: true }), mixed)).toEqual(["no-checks", "pass"]);
  });

  it("IgnoreCheckIDs leave those checks out of the decision", () => {
    expect(ids(query({ IgnoreCheckIDs: ["serfHealth"] }), mixed)).toEqual([
      "no-checks",
      "node-crit",
      "pass",
      "warn",
    ]);
    expect(ids(query({ OnlyPassing: true, IgnoreCheckIDs: ["service:db"] }), mixed)).toEqual([
      "crit",
      "no-checks",
      "pass",
      "warn",
    ]);
  });
});

describe("prepared query execution: tags and metadata", () => {
  const tagged = [
    candidate("a", {}, { tags: ["Primary", "v1"] }),
    candidate("b", {}, { tags: ["primary", "experimental"] }),
    candidate("c", {}, { tags: ["secondary"] }),
  ];

  it("all required tags, case-insensitively", () => {
    expect(ids(query({ Tags: ["PRIMARY"] }), tagged)).toEqual(["a", "b"]);
    expect(ids(query({ Tags: ["primary", "v1"] }), tagged)).toEqual(["a"]);
  });

  it("! excludes", () => {
    expect(ids(query({ Tags: ["primary", "!Experimental"] }), tagged)).toEqual(["a"]);
    expect(ids(query({ Tags: ["!primary"] }), tagged)).toEqual(["c"]);
  });

  it("NodeMeta and ServiceMeta must all match exactly", () => {
    const metas = [
      candidate("x", {}, { nodeMeta: { rack: "r1", az: "a" }, meta: { version: "2" } }),
      candidate("y", {}, { nodeMeta: { rack: "r2" }, meta: { version: "2" } }),
      candidate("z", {}, { nodeMeta: { rack: "r1" }, meta: {} }),
    ];
    expect(ids(query({ NodeMeta: { rack: "r1" } }), metas)).toEqual(["x", "z"]);
    expect(ids(query({ NodeMeta: { rack: "r1" }, ServiceMeta: { version: "2" } }), metas)).toEqual(["x"]);
    expect(ids(query({ ServiceMeta: { version: "" } }), metas)).toEqual([]);
  });
});

describe("prepared query execution: order and limit", () => {
  const many = Array.from({ length: 6 }, (_, i) => candidate(`n${i}`, {}));
  for (const [i, c] of many.entries()) coords.set(c.node.Node, at(i * 0.01));
  coords.set("origin", at(0.032));

  const ordered = (extra: { limit?: number; near?: string; seed?: number }) =>
    selectQueryNodes(query(), many, {
      random: prng(extra.seed ?? 1),
      origin: extra.near ? coords.get(extra.near) : undefined,
      originNode: extra.near,
      coordinateOf: (c) => coords.get(c.node.Node),
      limit: extra.limit ?? 0,
    }).map((c) => c.id);

  it("without near the result is shuffled by the injected PRNG (replayable)", () => {
    expect(ordered({ seed: 3 })).toEqual(ordered({ seed: 3 }));
    const orders = new Set([1, 2, 3, 4, 5].map((seed) => ordered({ seed }).join()));
    expect(orders.size).toBeGreaterThan(1);
  });

  it("near sorts by round-trip time from the origin node", () => {
    expect(ordered({ near: "origin" })).toEqual(["n3", "n4", "n2", "n5", "n1", "n0"]);
  });

  it("the near node itself comes first", () => {
    expect(ordered({ near: "n5" })[0]).toBe("n5");
  });

  it("an unknown near node leaves the shuffle", () => {
    expect(ordered({ near: "ghost", seed: 9 })).toEqual(ordered({ seed: 9 }));
  });

  it("limit applies after sorting or shuffling", () => {
    expect(ordered({ near: "origin", limit: 2 })).toEqual(["n3", "n4"]);
    expect(ordered({ seed: 4, limit: 3 })).toEqual(ordered({ seed: 4 }).slice(0, 3));
  });
});

describe("failover plan", () => {
  const byDistance = ["dc1", "dc3", "dc2", "dc4"];

  it("NearestN other datacenters first, then the fixed list, each once, never the local one", () => {
    expect(planFailover({ NearestN: 2, Datacenters: ["dc4", "dc3", "dc1"] }, "dc1", byDistance)).toEqual([
      "dc3",
      "dc2",
      "dc4",
    ]);
  });

  it("only the fixed list when NearestN is 0; unknown datacenters are skipped", () => {
    expect(planFailover({ NearestN: 0, Datacenters: ["dc2", "nowhere", "dc2"] }, "dc1", byDistance)).toEqual([
      "dc2",
    ]);
  });

  it("a single datacenter plans nothing", () => {
    expect(planFailover({ NearestN: 3, Datacenters: ["dc1"] }, "dc1", ["dc1"])).toEqual([]);
  });
});
