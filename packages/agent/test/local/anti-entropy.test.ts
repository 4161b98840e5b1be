import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planSync } from "../../src/local/sync-plan.js";
import { eventually, NODE, startTestAgent, type TestAgent } from "./harness.js";

const agents: TestAgent[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
async function agentWith(options: Parameters<typeof startTestAgent>[0]): Promise<TestAgent> {
  const a = await startTestAgent(options);
  agents.push(a);
  return a;
}

describe("anti-entropy", () => {
  it("re-registers a service removed from the catalog behind the agent's back", async () => {
    // Long enough that the removal is seen before the next full sync repairs it.
    const agent = await agentWith({ syncIntervalMs: 1000 });
    await agent.req("PUT", "/v1/agent/service/register", {
      Name: "web",
      ID: "web/1",
      Port: 80,
      Check: { TTL: "30s" },
    });
    const res = await agent.req("PUT", "/v1/catalog/deregister", { Node: NODE.name, ServiceID: "web/1" });
    expect(res.status).toBe(200);
    expect(await agent.json("/v1/catalog/service/web")).toEqual([]);
    await eventually(
      async () => (await agent.json<unknown[]>("/v1/catalog/service/web")).length === 1,
      5000,
      "repair",
    );
    const checks = await agent.json<{ CheckID: string }[]>("/v1/health/checks/web");
    expect(checks.map((c) => c.CheckID)).toEqual(["service:web/1"]);
  });

  it("deregisters services and checks on its node that it does not know, but never consul or serfHealth", async () => {
    const agent = await agentWith({ syncIntervalMs: 100 });
    await eventually(
      async () => (await agent.json<unknown[]>("/v1/catalog/nodes")).length === 1,
      5000,
      "node",
    );
    const register = (body: unknown) => agent.req("PUT", "/v1/catalog/register", body);
    const node = { Node: NODE.name, Address: NODE.address };
    expect((await register({ ...node, Service: { Service: "stray", ID: "stray" } })).status).toBe(200);
    await register({ ...node, Service: { Service: "consul", ID: "consul", Port: 8300 } });
    await register({
      ...node,
      Check: { CheckID: "serfHealth", Name: "Serf Health Status", Status: "passing" },
    });
    await register({ ...node, Check: { CheckID: "stray-check", Name: "stray", Status: "passing" } });
    await eventually(
      async () => !Object.hasOwn(await agent.json<Record<string, unknown>>("/v1/catalog/services"), "stray"),
      5000,
      "stray service removed",
    );
    await eventually(
      async () =>
        !(await agent.json<{ CheckID: string }[]>(`/v1/health/node/${NODE.name}`)).some(
          (c) => c.CheckID === "stray-check",
        ),
      5000,
      "stray check removed",
    );
    expect(Object.keys(await agent.json<Record<string, unknown>>("/v1/catalog/services"))).toContain(
      "consul",
    );
    const checks = await agent.json<{ CheckID: string }[]>(`/v1/health/node/${NODE.name}`);
    expect(checks.map((c) => c.CheckID)).toContain("serfHealth");
  });

  it("EnableTagOverride: tags changed in the catalog win; without it the agent's tags are restored", async () => {
    const agent = await agentWith({ syncIntervalMs: 100 });
    await agent.req("PUT", "/v1/agent/service/register", {
      Name: "eto",
      Tags: ["a"],
      EnableTagOverride: true,
    });
    await agent.req("PUT", "/v1/agent/service/register", { Name: "plain", Tags: ["a"] });
    const node = { Node: NODE.name, Address: NODE.address };
    await agent.req("PUT", "/v1/catalog/register", {
      ...node,
      Service: { Service: "eto", Tags: ["b"], EnableTagOverride: true },
    });
    await agent.req("PUT", "/v1/catalog/register", { ...node, Service: { Service: "plain", Tags: ["b"] } });
    const tagsOf = async (name: string) =>
      (await agent.json<{ ServiceTags: string[] }[]>(`/v1/catalog/service/${name}`))[0]?.ServiceTags;
    await eventually(async () => (await tagsOf("plain"))?.[0] === "a", 5000, "plain restored");
    await eventually(
      async () =>
        (await agent.json<Record<string, { Tags: string[] }>>("/v1/agent/services")).eto?.Tags[0] === "b",
      5000,
      "eto adopted",
    );
    expect(await tagsOf("eto")).toEqual(["b"]);
    // A re-registration through the agent is a local change: its tags go to the catalog.
    await agent.req("PUT", "/v1/agent/service/register", {
      Name: "eto",
      Tags: ["c"],
      EnableTagOverride: true,
    });
    expect(await tagsOf("eto")).toEqual(["c"]);
  });

  it("registers its node with address, tagged addresses and meta, and a second plan writes nothing", async () => {
    const agent = await agentWith({});
    await agent.req("PUT", "/v1/agent/service/register", { Name: "db", Check: { TTL: "30s" } });
    const node = await agent.json<{ Node: { Address: string; TaggedAddresses: unknown; Meta: unknown } }>(
      `/v1/catalog/node/${NODE.name}`,
    );
    expect(node.Node).toMatchObject({
      Address: "127.0.0.1",
      TaggedAddresses: NODE.taggedAddresses,
      Meta: NODE.meta,
    });
    const view = agent.backend.store.view();
    const entry = view.node(NODE.name).value;
    const plan = planSync(agent.local.snapshot(), {
      node: entry?.node,
      services: entry?.services ?? [],
      checks: view.checksForNode(NODE.name).value,
    });
    expect(plan).toEqual([]);
  });

  it("plans the node first, then a fresh service with all its checks", () => {
    const plan = planSync(
      {
        node: NODE,
        services: [
          {
            ID: "a",
            Service: "a",
            Tags: [],
            Address: "",
            TaggedAddresses: {},
            Meta: {},
            Port: 1,
            Kind: "",
            Proxy: null,
            Connect: null,
            EnableTagOverride: false,
            Weights: { Passing: 1, Warning: 1 },
            Namespace: "default",
          },
        ],
        checks: [
          {
            Node: NODE.name,
            CheckID: "service:a",
            Name: "a",
            Status: "critical",
            Notes: "",
            Output: "",
            ServiceID: "a",
            ServiceName: "a",
            ServiceTags: [],
            Type: "ttl",
            Definition: {},
            Namespace: "default",
          },
        ],
      },
      { node: undefined, services: [], checks: [] },
    );
    expect(plan).toHaveLength(2);
    // The node first (alone, as its token may be the only one with node:write), then the service.
    expect(plan[0]).toEqual({
      kind: "register",
      registration: expect.not.objectContaining({ Service: expect.anything() }),
      token: "",
    });
    expect(plan[1]).toMatchObject({
      kind: "register",
      registration: { Node: NODE.name, Service: { ID: "a" }, Checks: [{ CheckID: "service:a" }] },
    });
  });
});

describe("persistence and configuration", () => {
  it("API registrations and maintenance survive a restart with the same data directory; config entries are not persisted", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cairn-local-"));
    dirs.push(dataDir);
    const first = await startTestAgent({
      dataDir,
      config: { services: [{ name: "from-config", port: 9000, check: { ttl: "30s" } }], checks: [] },
    });
    await first.req("PUT", "/v1/agent/service/register", {
      Name: "kept",
      ID: "kept/1",
      Check: { TTL: "30s" },
    });
    await first.req("PUT", "/v1/agent/maintenance?enable=true&reason=moving%20racks");
    await first.req("PUT", "/v1/agent/service/maintenance/kept/1?enable=true");
    expect(Object.keys(await first.json<Record<string, unknown>>("/v1/agent/services")).sort()).toEqual([
      "from-config",
      "kept/1",
    ]);
    await first.close();

    const second = await agentWith({ dataDir });
    expect(Object.keys(await second.json<Record<string, unknown>>("/v1/agent/services"))).toEqual(["kept/1"]);
    const checks = await second.json<Record<string, { Notes: string; Status: string }>>("/v1/agent/checks");
    expect(Object.keys(checks).sort()).toEqual([
      "_node_maintenance",
      "_service_maintenance:kept/1",
      "service:kept/1",
    ]);
    expect(checks._node_maintenance).toMatchObject({ Status: "critical", Notes: "moving racks" });
    await second.req("PUT", "/v1/agent/maintenance?enable=false");
    await second.req("PUT", "/v1/agent/service/deregister/kept/1");
    await second.close();
    agents.pop();

    const third = await agentWith({ dataDir });
    expect(await third.json("/v1/agent/services")).toEqual({});
    expect(await third.json("/v1/agent/checks")).toEqual({});
  });

  it("a TTL check updated before a restart keeps its status while its TTL lasts", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cairn-local-"));
    dirs.push(dataDir);
    const first = await startTestAgent({ dataDir });
    await first.req("PUT", "/v1/agent/check/register", { Name: "beat", TTL: "30s" });
    await first.req("PUT", "/v1/agent/check/register", { Name: "brief", TTL: "100ms" });
    await first.req("PUT", "/v1/agent/check/pass/beat?note=alive");
    await first.req("PUT", "/v1/agent/check/pass/brief?note=alive");
    await first.close();
    await new Promise((r) => setTimeout(r, 150));
    const second = await agentWith({ dataDir });
    const checks = await second.json<Record<string, { Status: string; Output: string }>>("/v1/agent/checks");
    expect(checks.beat).toMatchObject({ Status: "passing", Output: "alive" });
    expect(checks.brief?.Status).toBe("critical");
  });

  it("services and checks from configuration blocks (snake_case) are registered and replaced on reload", async () => {
    const agent = await agentWith({
      config: {
        services: [
          {
            name: "conf",
            id: "conf-1",
            tags: ["a"],
            enable_tag_override: true,
            checks: [{ ttl: "30s", deregister_critical_service_after: "90m" }],
          },
        ],
        checks: [{ id: "disk", name: "Disk", ttl: "1m" }],
      },
    });
    const services =
      await agent.json<Record<string, { Tags: string[]; EnableTagOverride: boolean }>>("/v1/agent/services");
    expect(services["conf-1"]).toMatchObject({ Tags: ["a"], EnableTagOverride: true });
    expect(Object.keys(await agent.json<Record<string, unknown>>("/v1/agent/checks")).sort()).toEqual([
      "disk",
      "service:conf-1",
    ]);
    agent.local.reloadConfig({ services: [{ name: "other" }], checks: [] });
    expect(Object.keys(await agent.json<Record<string, unknown>>("/v1/agent/services"))).toEqual(["other"]);
    expect(() => agent.local.reloadConfig({ services: [{ port: 1 }], checks: [] })).toThrow(
      "services[0]: Missing service name",
    );
    expect(Object.keys(await agent.json<Record<string, unknown>>("/v1/agent/services"))).toEqual(["other"]);
  });
});
