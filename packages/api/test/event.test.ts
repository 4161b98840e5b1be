// /v1/event on an API with no event log wired (no gossip): an empty list, and a fire that says why it fails.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./http/harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe("/v1/event without an event log", () => {
  it("lists no events with index 1, also when asked to block", async () => {
    for (const query of ["", "?name=deploy", "?index=7&wait=1s"]) {
      const res = await server.req("GET", `/v1/event/list${query}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("X-Consul-Index")).toBe("1");
      expect(await res.json()).toEqual([]);
    }
  });

  it("answers a fire with 500 and the reason; a missing name is still 400", async () => {
    const res = await server.req("PUT", "/v1/event/fire/deploy", "x");
    expect([res.status, await res.text()]).toEqual([500, "User events are not available on this agent"]);
    const missing = await server.req("PUT", "/v1/event/fire/");
    expect([missing.status, await missing.text()]).toEqual([400, "Missing name"]);
  });

  it("rejects a malformed index as other blocking reads do", async () => {
    const res = await server.req("GET", "/v1/event/list?index=abc");
    expect(res.status).toBe(400);
  });
});
