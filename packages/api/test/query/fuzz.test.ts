// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are HIL templates, not JavaScript ones
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../http/harness.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

/** Values of every JSON type, often of the wrong one for the field they land in. */
const anyJson = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("${name.full}", "${match(1)}", "${", "(", "10s", "name_prefix_match", "<hidden>"),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
);

/** Mostly the right type for the field, sometimes anything. */
const mostly = <T>(right: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 9, arbitrary: right }, { weight: 1, arbitrary: anyJson as fc.Arbitrary<unknown> });
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom("${name.full}", "${match(1)}", "${", "db", "10s"),
);
const texts = fc.array(text, { maxLength: 3 });

const body = fc.record(
  {
    Name: mostly(text),
    Session: mostly(fc.constant("")),
    Token: mostly(text),
    Template: mostly(
      fc.record(
        {
          Type: fc.constantFrom("", "name_prefix_match", "other"),
          Regexp: fc.constantFrom("", "(", "^(.*)$"),
          RemoveEmptyTags: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    ),
    Service: mostly(
      fc.record(
        {
          Service: text,
          Tags: mostly(texts),
          NodeMeta: mostly(fc.dictionary(fc.constantFrom("rack", "b@d", ""), text, { maxKeys: 2 })),
          Failover: mostly(
            fc.record(
              { NearestN: fc.integer({ min: -1, max: 3 }), Datacenters: texts },
              { requiredKeys: [] },
            ),
          ),
          OnlyPassing: mostly(fc.boolean()),
          Near: mostly(text),
        },
        { requiredKeys: ["Service"] },
      ),
    ),
    DNS: mostly(fc.record({ TTL: text }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);

/**
 * Well-formed bodies mixed in, so that every run also stores and executes queries (not only refusals). They
 * are named: an anonymous query must be bound to a session (Consul's rule), so without a name these were all
 * refused and the run's stored queries came only from random bodies, a handful (a CI run had 3).
 */
const wellFormed = fc.record({
  Name: fc.uuid().map((u) => `q-${u.slice(0, 8)}`),
  Service: fc.record({ Service: fc.constantFrom("db", "web", "cache") }),
});
const bodies = fc.oneof({ weight: 1, arbitrary: wellFormed }, { weight: 4, arbitrary: body });

describe("prepared query bodies (fuzz)", () => {
  it("any body is stored (200) or refused with a one-line 400, never a fault; stored ones execute", async () => {
    let stored = 0;
    await fc.assert(
      fc.asyncProperty(bodies, async (b) => {
        const res = await s.req("POST", "/v1/query", JSON.stringify(b));
        const text = await res.text();
        expect([200, 400], text).toContain(res.status);
        if (res.status === 400) {
          expect(text).not.toContain("\n");
          return;
        }
        stored++;
        const { ID } = JSON.parse(text) as { ID: string };
        const read = await s.req("GET", `/v1/query/${ID}`);
        expect(read.status).toBe(200);
        const [q] = (await read.json()) as { Name: string; Template: { Type: string } }[];
        // Templates run by name; static queries by ID.
        const target = q?.Template.Type ? `${encodeURIComponent(q.Name)}x` : ID;
        const run = await s.req("GET", `/v1/query/${target}/execute`);
        expect([200, 404], await run.text()).toContain(run.status);
        await s.req("DELETE", `/v1/query/${ID}`);
      }),
      { numRuns: 300 },
    );
    expect(stored).toBeGreaterThan(5);
  });
});
