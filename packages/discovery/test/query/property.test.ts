// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are HIL templates, not JavaScript ones
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileTemplate,
  healthy,
  type QueryCandidate,
  renderTemplate,
  type ServiceQuery,
  selectQueryNodes,
  tagsSatisfy,
} from "../../src/index.js";

const status = fc.constantFrom("passing", "warning", "critical");
const candidate: fc.Arbitrary<QueryCandidate> = fc.record({
  node: fc.record({ Node: fc.string({ maxLength: 4 }), Meta: fc.constant({}) }),
  service: fc.record({
    Tags: fc.array(fc.constantFrom("a", "B", "c"), { maxLength: 3 }),
    Meta: fc.constant({}),
  }),
  checks: fc.array(fc.record({ CheckID: fc.constantFrom("x", "y", "z"), Status: status }), { maxLength: 3 }),
});

const query = (over: Partial<ServiceQuery>): ServiceQuery => ({
  Service: "s",
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

describe("execution properties", () => {
  it("returns a subset of the matching candidates, never more than the limit, none critical", () => {
    fc.assert(
      fc.property(
        fc.array(candidate, { maxLength: 12 }),
        fc.boolean(),
        fc.array(fc.constantFrom("a", "!b", "C", "!c"), { maxLength: 2 }),
        fc.nat(5),
        fc.integer(),
        (cands, onlyPassing, tags, limit, seed) => {
          let x = seed;
          const random = () => {
            x = (x * 1103515245 + 12345) & 0x7fffffff;
            return x / 0x80000000;
          };
          const q = query({ OnlyPassing: onlyPassing, Tags: tags });
          const out = selectQueryNodes(q, cands, { random, coordinateOf: () => undefined, limit });
          const matching = cands.filter(
            (c) => healthy(c, onlyPassing, []) && tagsSatisfy(c.service.Tags, tags),
          );
          expect(out.length).toBe(limit > 0 ? Math.min(limit, matching.length) : matching.length);
          for (const c of out) {
            expect(matching).toContain(c);
            expect(c.checks.some((k) => k.Status === "critical")).toBe(false);
            if (onlyPassing) expect(c.checks.every((k) => k.Status === "passing")).toBe(true);
          }
          expect(new Set(out).size).toBe(out.length);
        },
      ),
    );
  });
});

describe("template properties", () => {
  it("a template that compiled renders for any looked-up name", () => {
    const ct = compileTemplate({
      ID: "1",
      Name: "p",
      Session: "",
      Token: "",
      Template: { Type: "name_prefix_match", Regexp: "^p-([a-z]*)-?(.*)$", RemoveEmptyTags: true },
      Service: query({
        Service: "${match(1)}${name.suffix}",
        Tags: ["${match(2)}", "${match(9)}", "${name.full}"],
      }),
      DNS: { TTL: "" },
    });
    fc.assert(
      fc.property(fc.string(), (name) => {
        const rendered = renderTemplate(ct, `p${name}`, { segment: "" });
        expect(rendered.Service.Tags).toContain(`p${name}`);
        expect(rendered.Service.Tags).not.toContain("");
      }),
    );
  });
});
