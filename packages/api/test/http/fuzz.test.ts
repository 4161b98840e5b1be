import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAgentNode, startServer, type TestServer } from "./harness.js";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await registerAgentNode(s);
});
afterAll(() => s.close());

const param = fc.constantFrom(
  "recurse",
  "keys",
  "raw",
  "separator",
  "flags",
  "cas",
  "acquire",
  "release",
  "index",
  "wait",
  "stale",
  "consistent",
  "max_stale",
  "token",
  "ns",
);
const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    "0",
    "1",
    "1ms",
    "9.97s",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "%",
    "%zz",
    "abc",
  ),
);
/**
 * The 500s Consul's clients recognise, which Cairn keeps (Patroni acts on both); any other 500 is a fault.
 * An acquire naming a session that does not exist is the one a KV query can reach.
 */
const CONSUL_500 = /^(invalid session "[^\n]*"|Invalid Session TTL '\d+', must be between \[[^\]]+\])$/;

function expectNoFault(res: Response, text: string, what: string): void {
  if (res.status === 500 && CONSUL_500.test(text)) return;
  expect(res.status, `${what}: ${text}`).toBeLessThan(500);
}

const query = fc.array(fc.tuple(param, value), { maxLength: 5 }).map((pairs) => {
  // wait is kept tiny so a query that happens to block returns quickly; one with an index and no wait would
  // block for Consul's default five minutes (an `index=1` read of a key while the KV index is still 1 does).
  const parts = pairs.map(([k, v]) => (k === "wait" ? "wait=1ms" : `${k}=${encodeURIComponent(v)}`));
  const blocks = pairs.some(([k]) => k === "index") && !pairs.some(([k]) => k === "wait");
  return [...parts, ...(blocks ? ["wait=1ms"] : [])].join("&");
});

describe("HTTP fuzz", () => {
  it("any combination of KV query parameters answers below 500, but for Consul's own `invalid session`", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "PUT", "DELETE"),
        fc.string({ maxLength: 8 }),
        query,
        async (method, key, q) => {
          const res = await s.req(
            method,
            `/v1/kv/${encodeURIComponent(key)}?${q}`,
            method === "PUT" ? "v" : undefined,
          );
          expectNoFault(res, await res.text(), `${method} ${key}?${q}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("any JSON body to /v1/txn and /v1/session/create answers below 500, but for Consul's TTL refusal", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/v1/txn", "/v1/session/create"),
        fc.json({ maxDepth: 3 }),
        async (path, body) => {
          const res = await s.req("PUT", path, body);
          expectNoFault(res, await res.text(), `${path} ${body}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  const verb = fc.constantFrom(
    "set",
    "cas",
    "lock",
    "unlock",
    "get",
    "get-tree",
    "check-index",
    "check-session",
    "check-not-exists",
    "delete",
    "delete-tree",
    "delete-cas",
  );
  const name = fc.constantFrom("", "n1", "agent-one", "web", "a/b", "c1");
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  const op = fc.oneof(
    fc.record({
      KV: fc.record({
        Verb: verb,
        Key: fc.constantFrom("", "f/a", "f/b", "f/"),
        Value: maybe(fc.oneof(fc.constant(null), fc.base64String({ maxLength: 8 }))),
        Flags: maybe(fc.nat()),
        Index: maybe(fc.nat({ max: 50 })),
        Session: maybe(fc.oneof(fc.uuid(), fc.constant(""))),
      }),
    }),
    fc.record({
      Node: fc.record({
        Verb: fc.constantFrom("set", "cas", "get", "delete", "delete-cas"),
        Node: fc.record({
          Node: maybe(name),
          ID: maybe(fc.oneof(fc.uuid(), fc.constant(""))),
          Address: maybe(name),
          ModifyIndex: maybe(fc.nat({ max: 50 })),
        }),
      }),
    }),
    fc.record({
      Service: fc.record({
        Verb: fc.constantFrom("set", "cas", "get", "delete", "delete-cas"),
        Node: name,
        Service: fc.record({
          ID: maybe(name),
          Service: maybe(name),
          Port: maybe(fc.nat({ max: 65535 })),
          Tags: maybe(fc.array(name, { maxLength: 2 })),
          ModifyIndex: maybe(fc.nat({ max: 50 })),
        }),
      }),
    }),
    fc.record({
      Check: fc.record({
        Verb: fc.constantFrom("set", "cas", "get", "delete", "delete-cas"),
        Check: fc.record({
          Node: name,
          CheckID: name,
          Name: maybe(name),
          Status: maybe(fc.constantFrom("passing", "warning", "critical", "")),
          ServiceID: maybe(name),
          ModifyIndex: maybe(fc.nat({ max: 50 })),
        }),
      }),
    }),
  );

  it("well-formed and near-miss transactions answer 200, 409 or a 4xx, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
        const body = JSON.stringify(ops);
        const res = await s.req("PUT", "/v1/txn", body);
        const text = await res.text();
        expect(res.status, `${body}: ${text}`).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
  });
});
