// Alias checks following real registrations: a service on the agent itself (its local checks), and a
// service and node in the catalog (blocking queries on the node's health).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestAgent, type TestAgent } from "./harness.js";

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent.close());

type Checks = Record<string, { Status: string; Output: string; Type: string; ServiceID: string }>;

async function waitFor(id: string, status: string, output?: string) {
  await eventually(
    async () => {
      const check = (await agent.json<Checks>("/v1/agent/checks"))[id];
      return check?.Status === status && (output === undefined || check.Output === output);
    },
    10_000,
    `${id} ${status} ${output ?? ""}`,
  );
  return (await agent.json<Checks>("/v1/agent/checks"))[id];
}

async function ok(res: Response | Promise<Response>): Promise<void> {
  const answer = await res;
  expect(answer.status, await answer.clone().text()).toBe(200);
}

describe("alias of a service on this agent", () => {
  it("follows the service's checks through passing, warning and critical, and its removal", async () => {
    await ok(
      agent.req("PUT", "/v1/agent/service/register", {
        Name: "web",
        Port: 80,
        Check: { TTL: "30s", Status: "passing" },
      }),
    );
    await ok(agent.req("PUT", "/v1/agent/check/register", { Name: "web-alias", AliasService: "web" }));
    expect(await waitFor("web-alias", "passing", "All checks passing.")).toMatchObject({ Type: "alias" });

    await ok(agent.req("PUT", "/v1/agent/check/warn/service:web?note=slow"));
    await waitFor("web-alias", "warning", `Aliased check "Service 'web' check" failing: slow`);
    await ok(agent.req("PUT", "/v1/agent/check/fail/service:web?note=down"));
    await waitFor("web-alias", "critical", `Aliased check "Service 'web' check" failing: down`);
    await ok(agent.req("PUT", "/v1/agent/check/pass/service:web"));
    await waitFor("web-alias", "passing", "All checks passing.");

    // A node-level check of this agent counts too, as in Consul.
    await ok(agent.req("PUT", "/v1/agent/maintenance?enable=true&reason=upgrade"));
    await waitFor("web-alias", "critical", `Aliased check "Node Maintenance Mode" failing: `);
    await ok(agent.req("PUT", "/v1/agent/maintenance?enable=false"));
    await waitFor("web-alias", "passing", "All checks passing.");

    await ok(agent.req("PUT", "/v1/agent/service/deregister/web"));
    await waitFor("web-alias", "critical", "Service web could not be found on node ");
    await ok(agent.req("PUT", "/v1/agent/service/register", { Name: "web", Port: 80 }));
    await waitFor("web-alias", "passing", "No checks found.");

    // The catalog has the alias with its type and definition.
    await eventually(
      async () => {
        const checks =
          await agent.json<{ CheckID: string; Status: string; Type: string }[]>("/v1/health/node/node-a");
        const alias = checks.find((c) => c.CheckID === "web-alias");
        return alias?.Status === "passing" && alias.Type === "alias";
      },
      10_000,
      "catalog alias",
    );
    await agent.req("PUT", "/v1/agent/check/deregister/web-alias");
    await agent.req("PUT", "/v1/agent/service/deregister/web");
  });

  it("works as a service's own check (a sidecar following its app)", async () => {
    await ok(
      agent.req("PUT", "/v1/agent/service/register", {
        Name: "app",
        Check: { TTL: "30s", Status: "critical" },
      }),
    );
    await ok(
      agent.req("PUT", "/v1/agent/service/register", {
        Name: "app-sidecar",
        Checks: [{ Name: "follows app", AliasService: "app" }],
      }),
    );
    await waitFor("service:app-sidecar", "critical", `Aliased check "Service 'app' check" failing: `);
    await ok(agent.req("PUT", "/v1/agent/check/pass/service:app?note=fine"));
    await waitFor("service:app-sidecar", "passing", "All checks passing.");
    const health = await agent.json<{ Checks: { CheckID: string; Status: string }[] }[]>(
      "/v1/health/service/app-sidecar",
    );
    expect(health[0]?.Checks.map((c) => c.CheckID)).toContain("service:app-sidecar");
    await agent.req("PUT", "/v1/agent/service/deregister/app-sidecar");
    await agent.req("PUT", "/v1/agent/service/deregister/app");
  });
});

describe("alias of a service and a node in the catalog", () => {
  const register = (status: string, output: string, nodeStatus = "passing") =>
    ok(
      agent.req("PUT", "/v1/catalog/register", {
        Node: "n2",
        Address: "10.0.0.2",
        Service: { ID: "db1", Service: "db", Port: 5432 },
        Checks: [
          { CheckID: "db-health", Name: "db health", Status: status, Output: output, ServiceID: "db1" },
          { CheckID: "n2-up", Name: "node up", Status: nodeStatus, Output: "" },
        ],
      }),
    );

  it("follows the aliased service's checks on another node through blocking queries", async () => {
    await register("passing", "ok");
    await ok(
      agent.req("PUT", "/v1/agent/check/register", {
        Name: "db-alias",
        AliasNode: "n2",
        AliasService: "db1",
      }),
    );
    await ok(agent.req("PUT", "/v1/agent/check/register", { Name: "n2-alias", AliasNode: "n2" }));
    await ok(
      agent.req("PUT", "/v1/agent/check/register", {
        Name: "ghost-alias",
        AliasNode: "n2",
        AliasService: "ghost",
      }),
    );
    expect(await waitFor("db-alias", "passing", "All checks passing.")).toMatchObject({ Type: "alias" });
    await waitFor("n2-alias", "passing", "All checks passing.");
    await waitFor("ghost-alias", "critical", "Service ghost could not be found on node n2");

    await register("warning", "lagging");
    await waitFor("db-alias", "warning", `Aliased check "db health" failing: lagging`);
    // A service's check is not the node's: the node alias stays passing.
    expect((await agent.json<Checks>("/v1/agent/checks"))["n2-alias"]?.Status).toBe("passing");
    await register("critical", "refused");
    await waitFor("db-alias", "critical", `Aliased check "db health" failing: refused`);
    await register("passing", "ok", "critical");
    // The node's own check counts for both.
    await waitFor("db-alias", "critical", `Aliased check "node up" failing: `);
    await waitFor("n2-alias", "critical", `Aliased check "node up" failing: `);
    await register("passing", "ok");
    await waitFor("db-alias", "passing", "All checks passing.");
    await waitFor("n2-alias", "passing", "All checks passing.");

    for (const id of ["db-alias", "n2-alias", "ghost-alias"]) {
      await agent.req("PUT", `/v1/agent/check/deregister/${id}`);
    }
    await ok(agent.req("PUT", "/v1/catalog/deregister", { Node: "n2" }));
  });

  it("is critical with the reason when the catalog cannot be asked", async () => {
    const lonely = await startTestAgent({
      catalogFetch: async () => new Response("rpc error: no path to a server", { status: 500 }),
    });
    try {
      await ok(
        lonely.req("PUT", "/v1/agent/check/register", {
          Name: "far",
          AliasNode: "n9",
          AliasService: "x",
          Status: "passing",
        }),
      );
      await eventually(
        async () =>
          (await lonely.json<Checks>("/v1/agent/checks")).far?.Output ===
          "Failure checking aliased node or service: 500 rpc error: no path to a server",
        10_000,
        "alias failure reported",
      );
      expect((await lonely.json<Checks>("/v1/agent/checks")).far?.Status).toBe("critical");
    } finally {
      await lonely.close();
    }
  });
});
