import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ChainCompileError, type ChainEntries, type CompiledChain, compileChain } from "../../src/index.js";

const services = ["a", "b", "c"] as const;
const service = fc.constantFrom(...services);

/** Random splitters (weights summing to 100), resolvers (redirects, subsets, failover) and protocols. */
const world = fc.record({
  protocols: fc.record({
    a: fc.constantFrom("http", "tcp"),
    b: fc.constantFrom("http", "grpc"),
    c: fc.constant("http"),
  }),
  splitters: fc.dictionary(
    service,
    fc.array(
      fc.record({
        Service: fc.option(service, { nil: undefined }),
        ServiceSubset: fc.constantFrom("", "v1"),
      }),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  ),
  resolvers: fc.dictionary(
    service,
    fc.record({
      Subsets: fc.constantFrom({}, { v1: { Filter: "Service.Meta.v == 1" } }),
      Redirect: fc.option(fc.record({ Service: service }), { nil: undefined }),
      Failover: fc.option(
        fc.record({
          "*": fc.record({ Datacenters: fc.array(fc.constantFrom("dc1", "dc2"), { maxLength: 2 }) }),
        }),
        {
          nil: undefined,
        },
      ),
    }),
  ),
});

type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

function entriesOf(w: World): ChainEntries {
  return {
    resolver: (name) => (Object.hasOwn(w.resolvers, name) ? { Name: name, ...w.resolvers[name] } : undefined),
    splitter: (name) => {
      const splits = Object.hasOwn(w.splitters, name) ? w.splitters[name] : undefined;
      if (!splits) return undefined;
      // Whole-number weights that sum to exactly 100.
      const each = Math.floor(100 / splits.length);
      return {
        Name: name,
        Splits: splits.map((s, i) => ({ ...s, Weight: i === 0 ? 100 - each * (splits.length - 1) : each })),
      };
    },
    router: () => undefined,
    serviceDefaults: (name) => ({ Protocol: w.protocols[name as (typeof services)[number]] }),
    proxyDefaults: () => undefined,
  };
}

function checkShape(chain: CompiledChain): void {
  expect(chain.Nodes[chain.StartNode]).toBeDefined();
  const reachable = new Set<string>();
  const visit = (key: string) => {
    if (reachable.has(key)) return;
    reachable.add(key);
    const node = chain.Nodes[key];
    expect(node).toBeDefined();
    if (node?.Type === "splitter") {
      const total = node.Splits.reduce((sum, s) => sum + s.Weight, 0);
      expect(Math.abs(total - 100)).toBeLessThan(0.05);
      for (const s of node.Splits) {
        expect(chain.Nodes[s.NextNode]?.Type).toBe("resolver");
        visit(s.NextNode);
      }
    }
    if (node?.Type === "resolver") {
      expect(chain.Targets[node.Resolver.Target]).toBeDefined();
      for (const t of node.Resolver.Failover?.Targets ?? []) expect(chain.Targets[t]).toBeDefined();
    }
  };
  visit(chain.StartNode);
  expect([...reachable].sort()).toEqual(Object.keys(chain.Nodes).sort());
}

describe("discovery chain properties", () => {
  it("compiles to a well-formed graph (flattened splitters summing to 100, every link present) or a ChainCompileError", () => {
    let compiled = 0;
    fc.assert(
      fc.property(world, service, (w, start) => {
        let chain: CompiledChain;
        try {
          chain = compileChain({
            serviceName: start,
            namespace: "default",
            datacenter: "dc1",
            trustDomain: "x.consul",
            entries: entriesOf(w),
          });
        } catch (err) {
          expect(err).toBeInstanceOf(ChainCompileError);
          return;
        }
        checkShape(chain);
        compiled++;
      }),
      { numRuns: 500 },
    );
    // The generator must exercise successful compiles, not only refusals.
    expect(compiled).toBeGreaterThan(100);
  });
});
