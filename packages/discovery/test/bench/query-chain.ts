// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are HIL templates, not JavaScript ones
/**
 * Prepared query selection over 20,000 instances (health, tags, meta, shuffle, near sort, limit), template
 * rendering, and discovery chain compilation (a router, a splitter, subsets and failover).
 * Run: node --conditions=source --import tsx packages/discovery/test/bench/query-chain.ts
 * Reports the best of several rounds, which is the least disturbed by other load on the machine.
 */
import {
  type ChainEntries,
  type Coordinate,
  compileChain,
  compileTemplate,
  renderTemplate,
  type ServiceQuery,
  selectQueryNodes,
} from "../../src/index.js";

const COUNT = 20_000;
const ROUNDS = 15;

const coord = (x: number): Coordinate => ({
  Vec: [x, 0, 0, 0, 0, 0, 0, 0],
  Error: 0,
  Adjustment: 0,
  Height: 0,
});
const candidates = Array.from({ length: COUNT }, (_, i) => ({
  node: { Node: `node-${i}`, Meta: { rack: `r${i % 10}` } },
  service: { Tags: i % 2 ? ["v1", "primary"] : ["v2"], Meta: { env: i % 3 ? "prod" : "dev" } },
  checks: [
    { CheckID: "serfHealth", Status: "passing" },
    { CheckID: `svc-${i}`, Status: i % 17 === 0 ? "critical" : i % 5 === 0 ? "warning" : "passing" },
  ],
}));
const coords = new Map(candidates.map((c, i) => [c.node.Node, coord((i % 997) / 1000)]));

const service: ServiceQuery = {
  Service: "web",
  Failover: { NearestN: 0, Datacenters: null },
  IgnoreCheckIDs: null,
  OnlyPassing: false,
  Near: "",
  Tags: ["primary", "!canary"],
  NodeMeta: null,
  ServiceMeta: { env: "prod" },
  Connect: false,
};

function best(run: () => void, times = 1): number {
  let min = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    for (let i = 0; i < times; i++) run();
    min = Math.min(min, (performance.now() - start) / times);
  }
  return min;
}

const shuffled = best(
  () =>
    void selectQueryNodes(service, candidates, {
      random: Math.random,
      coordinateOf: () => undefined,
      limit: 0,
    }),
);
const near = best(
  () =>
    void selectQueryNodes(service, candidates, {
      random: Math.random,
      origin: coord(0.5),
      originNode: "node-1",
      coordinateOf: (c) => coords.get(c.node.Node),
      limit: 3,
    }),
);

const template = compileTemplate({
  ID: "t",
  Name: "geo-db",
  Session: "",
  Token: "",
  Template: { Type: "name_prefix_match", Regexp: "^geo-db-(.*?)-([^\\-]+?)$", RemoveEmptyTags: true },
  Service: { ...service, Service: "mysql-${match(1)}", Tags: ["${match(2)}"] },
  DNS: { TTL: "" },
});
const render = best(() => void renderTemplate(template, "geo-db-customer-primary", { segment: "" }), 1000);

const byName = new Map<string, Record<string, unknown>>([
  [
    "service-router/web",
    {
      Name: "web",
      Routes: [{ Match: { HTTP: { PathPrefix: "/admin" } }, Destination: { Service: "admin" } }],
    },
  ],
  [
    "service-splitter/web",
    {
      Name: "web",
      Splits: [
        { Weight: 90, ServiceSubset: "v1" },
        { Weight: 10, ServiceSubset: "v2" },
      ],
    },
  ],
  [
    "service-resolver/web",
    {
      Name: "web",
      Subsets: { v1: { Filter: "a" }, v2: { Filter: "b" } },
      Failover: { "*": { Datacenters: ["dc2", "dc3"] } },
    },
  ],
]);
const entries: ChainEntries = {
  resolver: (n) => byName.get(`service-resolver/${n}`),
  splitter: (n) => byName.get(`service-splitter/${n}`),
  router: (n) => byName.get(`service-router/${n}`),
  serviceDefaults: () => ({ Protocol: "http" }),
  proxyDefaults: () => undefined,
};
const chain = best(
  () =>
    void compileChain({
      serviceName: "web",
      namespace: "default",
      datacenter: "dc1",
      trustDomain: "x.consul",
      entries,
    }),
  1000,
);

console.log(`select ${COUNT} instances, shuffled: ${shuffled.toFixed(2)} ms`);
console.log(`select ${COUNT} instances, near-sorted, limit 3: ${near.toFixed(2)} ms`);
console.log(`render a template with a regexp: ${(render * 1000).toFixed(1)} us`);
console.log(`compile a chain (router, splitter, 2 subsets, 2 failover dcs): ${(chain * 1000).toFixed(1)} us`);
