import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClusterBackend, NoClusterLeaderError } from "../../src/backend.js";
import { startServer, type TestServer } from "./harness.js";

const lines: Record<string, unknown>[] = [];
const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
let failure: Error | undefined;

let s: TestServer;
beforeAll(async () => {
  s = await startServer(
    {},
    {
      logger,
      // A backend whose write path fails on demand, to see how faults surface.
      wrap: (local) =>
        new Proxy(local, {
          get(target, prop, receiver) {
            if (prop === "apply" && failure) {
              const err = failure;
              return () => Promise.reject(err);
            }
            const value = Reflect.get(target, prop, receiver);
            return typeof value === "function" ? value.bind(target) : value;
          },
        }) as ClusterBackend,
    },
  );
});
afterAll(() => s.close());

describe("faults and logging", () => {
  it("writes one debug line per request and never logs token values", async () => {
    lines.length = 0;
    await s.req("GET", "/v1/kv/log/x?token=supersecret", undefined, { "X-Consul-Token": "headersecret" });
    const requestLines = lines.filter((l) => l.msg === "request");
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      level: 20,
      method: "GET",
      status: 404,
      url: "/v1/kv/log/x?token=%3Chidden%3E",
    });
    expect(JSON.stringify(lines)).not.toMatch(/supersecret|headersecret/);
  });

  it("a real fault is a 500 with a one-line body, logged at error level with its cause", async () => {
    lines.length = 0;
    failure = new Error("disk on fire\nsecond line");
    const res = await s.req("PUT", "/v1/kv/log/y", "v");
    failure = undefined;
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("disk on fire second line");
    const errorLine = lines.find((l) => l.level === 50);
    expect(errorLine).toMatchObject({ method: "PUT", path: "/v1/kv/log/y" });
    expect(JSON.stringify(errorLine)).toMatch(/disk on fire/);
  });

  it("no cluster leader is a 500 'No cluster leader'", async () => {
    failure = new NoClusterLeaderError();
    const res = await s.req("PUT", "/v1/kv/log/z", "v");
    failure = undefined;
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("No cluster leader");
  });

  it("bad input is not logged as an error", async () => {
    lines.length = 0;
    expect((await s.req("PUT", "/v1/kv/log/z?flags=x", "v")).status).toBe(400);
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
  });

  it("another datacenter is answered as Consul does for one it cannot reach; its own is fine", async () => {
    const res = await s.req("GET", "/v1/kv/log/x?dc=elsewhere");
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("No path to datacenter");
    expect((await s.req("GET", "/v1/kv/log/x?dc=dc1")).status).toBe(404);
  });
});
