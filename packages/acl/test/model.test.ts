import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CompiledRules, type LabelledRule, type PolicyName, type PolicyRules } from "../src/index.js";

// A brute-force statement of Consul's semantics to check the compiled radix trees against:
// merge rules with the same resource, kind and label (deny wins, else the most permissive), then an exact
// rule for the whole name, else the longest prefix rule.

const RANK: Record<PolicyName, number> = { deny: 1, read: 2, list: 3, write: 4 };
const NEED = { read: 2, list: 3, write: 4 } as const;

function precedes(a: PolicyName, b: PolicyName | undefined): boolean {
  if (b === undefined || a === "deny") return true;
  if (b === "deny") return false;
  return RANK[a] > RANK[b];
}

function merged(policies: readonly (readonly LabelledRule[])[]): Map<string, PolicyName> {
  const out = new Map<string, PolicyName>();
  for (const rules of policies) {
    for (const r of rules) {
      const key = `${r.resource}|${r.prefix}|${r.name}`;
      if (precedes(r.policy, out.get(key))) out.set(key, r.policy);
    }
  }
  return out;
}

function modelLevel(rules: Map<string, PolicyName>, resource: string, name: string): PolicyName | undefined {
  const exact = rules.get(`${resource}|false|${name}`);
  if (exact !== undefined) return exact;
  for (let len = name.length; len >= 0; len--) {
    const p = rules.get(`${resource}|true|${name.slice(0, len)}`);
    if (p !== undefined) return p;
  }
  return undefined;
}

function modelDecide(
  rules: Map<string, PolicyName>,
  resource: string,
  name: string,
  access: keyof typeof NEED,
) {
  const level = modelLevel(rules, resource, name);
  if (level === undefined) return "default";
  return RANK[level] >= NEED[access] ? "allow" : "deny";
}

function modelKeyWritePrefix(rules: Map<string, PolicyName>, prefix: string) {
  let base: PolicyName | undefined;
  for (let len = prefix.length; len >= 0 && base === undefined; len--)
    base = rules.get(`key|true|${prefix.slice(0, len)}`);
  if (base !== undefined && base !== "write") return "deny";
  for (const [key, policy] of rules) {
    const [resource, , label] = key.split("|") as [string, string, string];
    if (resource === "key" && label.startsWith(prefix) && policy !== "write") return "deny";
  }
  return base === undefined ? "default" : "allow";
}

const label = fc.array(fc.constantFrom("a", "b", "/"), { maxLength: 4 }).map((cs) => cs.join(""));
const rule = fc.record({
  resource: fc.constantFrom("key" as const, "service" as const),
  name: label,
  prefix: fc.boolean(),
  policy: fc.constantFrom<PolicyName>("deny", "read", "list", "write"),
});
const policies = fc.array(fc.array(rule, { maxLength: 12 }), { minLength: 1, maxLength: 4 });

function rulesOf(rules: readonly LabelledRule[]): PolicyRules {
  return { singletons: {}, rules, namespaces: [] };
}

describe("compiled rules agree with a brute-force model of Consul's semantics", () => {
  it("for single decisions", () => {
    fc.assert(
      fc.property(
        policies,
        fc.array(
          fc.tuple(
            fc.constantFrom("key" as const, "service" as const),
            label,
            fc.constantFrom("read" as const, "list" as const, "write" as const),
          ),
          {
            minLength: 1,
            maxLength: 20,
          },
        ),
        (ps, queries) => {
          const compiled = new CompiledRules(ps.map((rs) => ({ namespace: "default", rules: rulesOf(rs) })));
          const model = merged(ps);
          for (const [resource, name, access] of queries) {
            expect(compiled.decide("default", resource, name, access)).toBe(
              modelDecide(model, resource, name, access),
            );
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("for recursive deletes (KeyWritePrefix)", () => {
    fc.assert(
      fc.property(policies, fc.array(label, { minLength: 1, maxLength: 10 }), (ps, prefixes) => {
        const compiled = new CompiledRules(ps.map((rs) => ({ namespace: "default", rules: rulesOf(rs) })));
        const model = merged(ps);
        for (const prefix of prefixes) {
          expect(compiled.keyWritePrefix("default", prefix)).toBe(modelKeyWritePrefix(model, prefix));
        }
      }),
      { numRuns: 1000 },
    );
  });
});
