import { COMMAND_VERSION } from "@cairn/fsm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../http/harness.js";
import { coordAt, getJson, register, sleep } from "./fixtures.js";

/**
 * Every catalog, health and coordinate read blocks on `index` and wakes on a change to what it covered,
 * and only then: a write elsewhere leaves it waiting until `wait` runs out, with the same index.
 */

let s: TestServer;
const WOKEN_WITHIN_MS = 2500;
const SHORT_WAIT = "400ms";

beforeAll(async () => {
  s = await startServer();
  await register(s, {
    Node: "a",
    Address: "10.3.0.1",
    Service: { ID: "web", Service: "web", Port: 80 },
    Check: { CheckID: "serfHealth", Status: "passing" },
  });
  await register(s, {
    Node: "b",
    Address: "10.3.0.2",
    Service: { ID: "db", Service: "db", Port: 5432 },
  });
  await s.backend.apply({
    v: COMMAND_VERSION,
    type: "coordinate.batch-update",
    updates: [{ Node: "a", Coord: coordAt(0.1) }],
  });
});
afterAll(() => s.close());

/** Starts a blocked read at the path's current index, runs `write`, and reports how the read ended. */
async function blockThen(
  path: string,
  write: () => Promise<void>,
  wait = "5s",
): Promise<{ woke: boolean; elapsed: number; before: number; after: number }> {
  const { index: before } = await getJson(s, path);
  const sep = path.includes("?") ? "&" : "?";
  const started = Date.now();
  const blocked = getJson(s, `${path}${sep}index=${before}&wait=${wait}`);
  await sleep(30);
  await write();
  const { index: after } = await blocked;
  const elapsed = Date.now() - started;
  return { woke: after > before, elapsed, before, after };
}

const reg = (body: unknown) => () => register(s, body);
const nodeA = { Node: "a", Address: "10.3.0.1" };

describe("blocking catalog reads wake on their own changes", () => {
  const cases: [string, () => Promise<void>][] = [
    ["/v1/catalog/nodes", reg({ Node: "n-new", Address: "10.3.0.9" })],
    ["/v1/catalog/services", reg({ ...nodeA, Service: { Service: "cache" } })],
    // A service lookup wakes on a new instance, and on a change to the node of an instance.
    [
      "/v1/catalog/service/web",
      reg({ Node: "b", Address: "10.3.0.2", Service: { ID: "web", Service: "web" } }),
    ],
    ["/v1/catalog/service/web", reg({ ...nodeA, NodeMeta: { moved: "yes" } })],
    [
      "/v1/catalog/connect/web",
      reg({
        Node: "b",
        Address: "10.3.0.2",
        Service: {
          Service: "web-proxy",
          Kind: "connect-proxy",
          Port: 2,
          Proxy: { DestinationServiceName: "web" },
        },
      }),
    ],
    ["/v1/catalog/node/a", reg({ ...nodeA, Service: { Service: "extra" } })],
    ["/v1/health/service/web", reg({ ...nodeA, Check: { CheckID: "serfHealth", Status: "critical" } })],
    [
      "/v1/health/service/web?passing",
      reg({ ...nodeA, Check: { CheckID: "serfHealth", Status: "passing" } }),
    ],
    [
      "/v1/health/checks/web",
      reg({ ...nodeA, Check: { CheckID: "web-check", ServiceID: "web", Status: "passing" } }),
    ],
    ["/v1/health/node/a", reg({ ...nodeA, Check: { CheckID: "disk", Status: "warning" } })],
    ["/v1/health/state/critical", reg({ ...nodeA, Check: { CheckID: "disk", Status: "critical" } })],
    [
      "/v1/health/connect/web",
      reg({
        Node: "b",
        Address: "10.3.0.2",
        Check: { CheckID: "proxy-check", ServiceID: "web-proxy", Status: "passing" },
      }),
    ],
    [
      "/v1/coordinate/nodes",
      async () => {
        await s.backend.apply({
          v: COMMAND_VERSION,
          type: "coordinate.batch-update",
          updates: [{ Node: "b", Coord: coordAt(0.2) }],
        });
      },
    ],
    [
      "/v1/coordinate/node/a",
      async () => {
        await s.backend.apply({
          v: COMMAND_VERSION,
          type: "coordinate.batch-update",
          updates: [{ Node: "a", Coord: coordAt(0.3) }],
        });
      },
    ],
  ];
  for (const [path, write] of cases) {
    it(path, async () => {
      const r = await blockThen(path, write);
      expect(r.woke, `index ${r.before} -> ${r.after}`).toBe(true);
      expect(r.elapsed).toBeLessThan(WOKEN_WITHIN_MS);
    });
  }
});

describe("blocking reads stay blocked through unrelated writes", () => {
  const cases: [string, () => Promise<void>][] = [
    [
      "/v1/catalog/service/web",
      reg({ Node: "b", Address: "10.3.0.2", Service: { ID: "db", Service: "db", Port: 5433 } }),
    ],
    ["/v1/catalog/node/a", reg({ Node: "b", Address: "10.3.0.2", Service: { Service: "other" } })],
    [
      "/v1/health/checks/web",
      reg({ Node: "c", Address: "10.3.0.3", Check: { CheckID: "c-check", Status: "passing" } }),
    ],
    [
      "/v1/health/node/a",
      reg({ Node: "c", Address: "10.3.0.3", Check: { CheckID: "c-check", Status: "warning" } }),
    ],
  ];
  for (const [path, write] of cases) {
    it(path, async () => {
      const r = await blockThen(path, write, SHORT_WAIT);
      expect(r.woke).toBe(false);
      expect(r.elapsed).toBeGreaterThanOrEqual(380);
    });
  }
});
