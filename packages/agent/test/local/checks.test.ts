import { createServer as createHttpServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestAgent, type TestAgent } from "./harness.js";

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent.close());

type Checks = Record<string, { Status: string; Output: string }>;
const statusOf = async (id: string) => (await agent.json<Checks>("/v1/agent/checks"))[id]?.Status;
const catalogStatusOf = async (service: string, id: string) =>
  (await agent.json<{ CheckID: string; Status: string }[]>(`/v1/health/checks/${service}`)).find(
    (c) => c.CheckID === id,
  )?.Status;

function listen<S extends Server | TcpServer>(server: S, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}
function close(server: Server | TcpServer): Promise<void> {
  if ("closeAllConnections" in server) server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

describe("HTTP checks against a real listener", () => {
  it("passing on 2xx, warning on 429, critical when the listener stops, passing again when it returns", async () => {
    let code = 200;
    const handler = (_req: unknown, res: import("node:http").ServerResponse) => {
      res.statusCode = code;
      res.end("hello from the app");
    };
    let app = createHttpServer(handler);
    const port = await listen(app);
    await agent.req("PUT", "/v1/agent/service/register", {
      Name: "app",
      Port: port,
      Check: { HTTP: `http://127.0.0.1:${port}/health`, Interval: "50ms", Timeout: "500ms" },
    });
    await eventually(async () => (await statusOf("service:app")) === "passing", 5000, "passing");
    expect((await agent.json<Checks>("/v1/agent/checks"))["service:app"]?.Output).toBe(
      `HTTP GET http://127.0.0.1:${port}/health: 200 OK Output: hello from the app`,
    );
    await eventually(
      async () => (await catalogStatusOf("app", "service:app")) === "passing",
      5000,
      "catalog passing",
    );
    code = 429;
    await eventually(async () => (await statusOf("service:app")) === "warning", 5000, "warning");
    code = 200;
    await eventually(async () => (await statusOf("service:app")) === "passing", 5000, "passing again");
    await close(app);
    await eventually(async () => (await statusOf("service:app")) === "critical", 5000, "critical");
    await eventually(
      async () => (await catalogStatusOf("app", "service:app")) === "critical",
      5000,
      "catalog critical",
    );
    app = createHttpServer(handler);
    await listen(app, port);
    await eventually(async () => (await statusOf("service:app")) === "passing", 5000, "back");
    await eventually(
      async () => (await catalogStatusOf("app", "service:app")) === "passing",
      5000,
      "catalog back",
    );
    await close(app);
    await agent.req("PUT", "/v1/agent/service/deregister/app");
  });

  it("sends the definition's method and headers", async () => {
    let seen: { method?: string; header?: string | string[] } = {};
    const app = createHttpServer((req, res) => {
      seen = { method: req.method, header: req.headers["x-probe"] };
      res.end();
    });
    const port = await listen(app);
    await agent.req("PUT", "/v1/agent/check/register", {
      Name: "posted",
      HTTP: `http://127.0.0.1:${port}/`,
      Method: "POST",
      Header: { "X-Probe": ["yes"] },
      Interval: "50ms",
    });
    await eventually(async () => (await statusOf("posted")) === "passing", 5000);
    expect(seen).toEqual({ method: "POST", header: "yes" });
    await agent.req("PUT", "/v1/agent/check/deregister/posted");
    await close(app);
  });
});

describe("TCP checks against a real listener", () => {
  it("passing while something accepts connections, critical when it stops, passing when it returns", async () => {
    let listener = createTcpServer((socket) => socket.end());
    const port = await listen(listener);
    await agent.req("PUT", "/v1/agent/check/register", {
      Name: "tcp",
      TCP: `127.0.0.1:${port}`,
      Interval: "50ms",
      Timeout: "1s",
    });
    await eventually(async () => (await statusOf("tcp")) === "passing", 5000, "tcp passing");
    expect((await agent.json<Checks>("/v1/agent/checks")).tcp?.Output).toBe(
      `TCP connect 127.0.0.1:${port}: Success`,
    );
    await close(listener);
    await eventually(async () => (await statusOf("tcp")) === "critical", 5000, "tcp critical");
    listener = createTcpServer((socket) => socket.end());
    await listen(listener, port);
    await eventually(async () => (await statusOf("tcp")) === "passing", 5000, "tcp back");
    await close(listener);
    await agent.req("PUT", "/v1/agent/check/deregister/tcp");
  });

  it("FailuresBeforeCritical holds the status until that many failures in a row", async () => {
    const listener = createTcpServer((socket) => socket.end());
    const port = await listen(listener);
    await agent.req("PUT", "/v1/agent/check/register", {
      Name: "patient",
      TCP: `127.0.0.1:${port}`,
      Interval: "50ms",
      failures_before_critical: 1000,
    });
    // As in Consul, the first result applies at once; the threshold counts from then on.
    await eventually(async () => (await statusOf("patient")) === "passing", 5000, "patient passing");
    await close(listener);
    await new Promise((r) => setTimeout(r, 400));
    expect(await statusOf("patient")).toBe("passing");
    await agent.req("PUT", "/v1/agent/check/deregister/patient");
  });
});

describe("script checks", () => {
  it("run with enable_script_checks: exit 0 passing, 1 warning, other critical", async () => {
    const scripted = await startTestAgent({ enableScriptChecks: true });
    try {
      for (const code of [0, 1, 2]) {
        await scripted.req("PUT", "/v1/agent/check/register", {
          Name: `exit-${code}`,
          Args: ["/bin/sh", "-c", `echo out-${code}; exit ${code}`],
          Interval: "50ms",
          Status: code === 2 ? "passing" : "critical",
        });
      }
      await eventually(
        async () => {
          const checks = await scripted.json<Checks>("/v1/agent/checks");
          return (
            checks["exit-0"]?.Status === "passing" &&
            checks["exit-1"]?.Status === "warning" &&
            checks["exit-2"]?.Status === "critical"
          );
        },
        5000,
        "script statuses",
      );
      expect((await scripted.json<Checks>("/v1/agent/checks"))["exit-1"]?.Output).toBe("out-1\n");
    } finally {
      await scripted.close();
    }
  });
});

describe("DeregisterCriticalServiceAfter", () => {
  it("removes the service once its check has stayed critical that long", async () => {
    // Passing until the test fails it: registered critical, a busy machine could reap it before the catalog
    // read below.
    await agent.req("PUT", "/v1/agent/service/register", {
      Name: "doomed",
      Check: { TTL: "30s", Status: "passing", DeregisterCriticalServiceAfter: "200ms" },
    });
    expect((await agent.json<Record<string, unknown>>("/v1/catalog/services")).doomed).toBeDefined();
    await agent.req("PUT", "/v1/agent/check/fail/service:doomed");
    await eventually(
      async () => !Object.hasOwn(await agent.json<Record<string, unknown>>("/v1/agent/services"), "doomed"),
      5000,
      "agent removal",
    );
    await eventually(
      async () => !Object.hasOwn(await agent.json<Record<string, unknown>>("/v1/catalog/services"), "doomed"),
      5000,
      "catalog removal",
    );
  });

  it("keeps a service whose check recovers in time", async () => {
    await agent.req("PUT", "/v1/agent/service/register", {
      Name: "survivor",
      Check: { TTL: "30s", Status: "passing", DeregisterCriticalServiceAfter: "300ms" },
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(Object.hasOwn(await agent.json<Record<string, unknown>>("/v1/agent/services"), "survivor")).toBe(
      true,
    );
  });
});
