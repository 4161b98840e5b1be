import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, NODE, startTestAgent, type TestAgent } from "./harness.js";

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent({ aclEnabled: true });
});
afterAll(() => agent.close());

type Services = Record<
  string,
  { ID: string; Service: string; Tags: string[]; Port: number; Datacenter: string }
>;
type Checks = Record<
  string,
  { CheckID: string; Status: string; Output: string; Notes: string; ServiceID: string; Type: string }
>;

const catalogService = (name: string) =>
  agent.json<{ ServiceID: string; ServiceTags: string[] }[]>(`/v1/catalog/service/${name}`);
const healthChecks = (name: string) =>
  agent.json<{ CheckID: string; Status: string; Output: string }[]>(`/v1/health/checks/${name}`);

describe("service registration", () => {
  it("registers a service whose ID holds slashes, lists it, reads it and syncs it to the catalog", async () => {
    const res = await agent.req("PUT", "/v1/agent/service/register", {
      name: "web",
      id: "web/eu/1",
      tags: ["v1"],
      port: 8080,
      meta: { env_name: "prod" },
      enable_tag_override: false,
      check: { ttl: "30s" },
    });
    expect(res.status).toBe(200);
    const services = await agent.json<Services>("/v1/agent/services");
    expect(services["web/eu/1"]).toMatchObject({
      ID: "web/eu/1",
      Service: "web",
      Tags: ["v1"],
      Port: 8080,
      Datacenter: "dc1",
    });
    const one = await agent.req("GET", "/v1/agent/service/web/eu/1");
    expect(one.status).toBe(200);
    expect(one.headers.get("X-Consul-ContentHash")).toMatch(/^[0-9a-f]{16}$/);
    expect(await one.json()).toMatchObject({ ID: "web/eu/1", Meta: { env_name: "prod" } });
    // The registration answers once the catalog has it.
    expect(await catalogService("web")).toMatchObject([{ ServiceID: "web/eu/1", ServiceTags: ["v1"] }]);
    // A new TTL check starts critical; its default ID and name are Consul's.
    const checks = await agent.json<Checks>("/v1/agent/checks");
    expect(checks["service:web/eu/1"]).toMatchObject({
      Status: "critical",
      ServiceID: "web/eu/1",
      Type: "ttl",
    });
  });

  it("/agent/service/:id blocks on its content hash until the service changes or the wait ends", async () => {
    const first = await agent.req("GET", "/v1/agent/service/web/eu/1");
    const hash = first.headers.get("X-Consul-ContentHash") ?? "";
    const started = Date.now();
    const timedOut = await agent.req("GET", `/v1/agent/service/web/eu/1?hash=${hash}&wait=150ms`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(timedOut.headers.get("X-Consul-ContentHash")).toBe(hash);
    const blocked = agent.req("GET", `/v1/agent/service/web/eu/1?hash=${hash}&wait=5s`);
    await new Promise((r) => setTimeout(r, 100));
    await agent.req("PUT", "/v1/agent/service/register", {
      name: "web",
      id: "web/eu/1",
      tags: ["v2"],
      port: 8080,
    });
    const changed = await blocked;
    expect(changed.headers.get("X-Consul-ContentHash")).not.toBe(hash);
    expect(((await changed.json()) as { Tags: string[] }).Tags).toEqual(["v2"]);
    await agent.req("PUT", "/v1/agent/service/register", {
      name: "web",
      id: "web/eu/1",
      tags: ["v1"],
      port: 8080,
      meta: { env_name: "prod" },
      check: { ttl: "30s" },
    });
  });

  it("filters /agent/services and /agent/checks with filter expressions", async () => {
    await agent.req("PUT", "/v1/agent/service/register", { Name: "db", Port: 5432, Tags: ["primary"] });
    const filtered = await agent.json<Services>(
      `/v1/agent/services?filter=${encodeURIComponent('"primary" in Tags')}`,
    );
    expect(Object.keys(filtered)).toEqual(["db"]);
    const checks = await agent.json<Checks>(
      `/v1/agent/checks?filter=${encodeURIComponent('ServiceName == "web"')}`,
    );
    expect(Object.keys(checks)).toEqual(["service:web/eu/1"]);
    const bad = await agent.req("GET", `/v1/agent/services?filter=${encodeURIComponent("Nope == 1")}`);
    expect(bad.status).toBe(400);
  });

  it("refuses bad definitions with 400 and one line, storing nothing", async () => {
    const cases: [unknown, RegExp][] = [
      [{ Port: 80 }, /^Missing service name$/],
      [{ Name: "x", Address: "0.0.0.0" }, /^Invalid service address$/],
      [{ Name: "x", Check: { HTTP: "http://127.0.0.1/", Interval: "often" } }, /invalid duration "often"/],
      [{ Name: "x", Check: { HTTP: "http://127.0.0.1/" } }, /^Invalid check: Interval must be > 0/],
      [{ Name: "x", Check: { TTL: "10s", Status: "sideways" } }, /^Status for checks must/],
      [{ Name: "x", Check: { Args: ["/bin/true"], Interval: "10s" } }, /^Scripts are disabled/],
      ["{not json", /^Request decode failed/],
    ];
    for (const [body, reason] of cases) {
      const res = await agent.req("PUT", "/v1/agent/service/register", body);
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toMatch(reason);
      expect(text).not.toContain("\n");
    }
    expect(Object.keys(await agent.json<Services>("/v1/agent/services"))).not.toContain("x");
  });

  it("replace-existing-checks drops checks the new definition does not name", async () => {
    await agent.req("PUT", "/v1/agent/service/register", {
      Name: "api",
      Checks: [{ TTL: "30s" }, { TTL: "30s" }],
    });
    expect(Object.keys(await agent.json<Checks>("/v1/agent/checks"))).toEqual(
      expect.arrayContaining(["service:api:1", "service:api:2"]),
    );
    await agent.req("PUT", "/v1/agent/service/register", {
      Name: "api",
      Check: { CheckID: "api-ttl", TTL: "30s" },
    });
    let ids = Object.keys(await agent.json<Checks>("/v1/agent/checks"));
    expect(ids).toEqual(expect.arrayContaining(["service:api:1", "service:api:2", "api-ttl"]));
    await agent.req("PUT", "/v1/agent/service/register?replace-existing-checks", {
      Name: "api",
      Check: { CheckID: "api-ttl", TTL: "30s" },
    });
    ids = Object.keys(await agent.json<Checks>("/v1/agent/checks"));
    expect(ids).toContain("api-ttl");
    expect(ids).not.toContain("service:api:1");
  });

  it("deregisters by ID (slashes included) and answers 404 for an unknown one", async () => {
    await agent.req("PUT", "/v1/agent/service/register", { Name: "tmp", ID: "tmp/1", Check: { TTL: "30s" } });
    expect((await agent.req("PUT", "/v1/agent/service/deregister/tmp/1")).status).toBe(200);
    expect(Object.keys(await agent.json<Services>("/v1/agent/services"))).not.toContain("tmp/1");
    expect(Object.keys(await agent.json<Checks>("/v1/agent/checks"))).not.toContain("service:tmp/1");
    expect(await catalogService("tmp")).toEqual([]);
    const missing = await agent.req("PUT", "/v1/agent/service/deregister/tmp/1");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe(
      'Unknown service ID "tmp/1". Ensure that the service ID is passed, not the service name.',
    );
    expect((await agent.req("GET", "/v1/agent/service/tmp/1")).status).toBe(404);
    expect((await agent.req("GET", "/v1/agent/services", undefined)).status).toBe(200);
    expect((await agent.req("POST", "/v1/agent/service/deregister/x")).status).toBe(405);
  });
});

describe("TTL checks", () => {
  it("pass, warn, fail and update set the status and output, and the catalog follows", async () => {
    await agent.req("PUT", "/v1/agent/check/register", { Name: "cron", TTL: "30s", Notes: "nightly" });
    let check = (await agent.json<Checks>("/v1/agent/checks")).cron;
    expect(check).toMatchObject({ Status: "critical", Notes: "nightly", ServiceID: "" });
    for (const [verb, status] of [
      ["pass", "passing"],
      ["warn", "warning"],
      ["fail", "critical"],
    ] as const) {
      expect((await agent.req("PUT", `/v1/agent/check/${verb}/cron?note=${verb}ed`)).status).toBe(200);
      check = (await agent.json<Checks>("/v1/agent/checks")).cron;
      expect(check).toMatchObject({ Status: status, Output: `${verb}ed` });
    }
    expect(
      (await agent.req("PUT", "/v1/agent/check/update/cron", { Status: "passing", Output: "all good" }))
        .status,
    ).toBe(200);
    const node = await agent.json<{ CheckID: string; Status: string; Output: string }[]>(
      `/v1/health/node/${NODE.name}`,
    );
    expect(node.find((c) => c.CheckID === "cron")).toMatchObject({ Status: "passing", Output: "all good" });
  });

  it("a check registered with a Status starts in it", async () => {
    await agent.req("PUT", "/v1/agent/check/register", { Name: "warm", TTL: "30s", Status: "passing" });
    expect((await agent.json<Checks>("/v1/agent/checks")).warm?.Status).toBe("passing");
  });

  it("refuses updates Consul refuses", async () => {
    const bad = await agent.req("PUT", "/v1/agent/check/update/cron", { Status: "sideways" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe("Invalid check status: 'sideways'");
    const unknown = await agent.req("PUT", "/v1/agent/check/pass/nope");
    expect(unknown.status).toBe(500);
    expect(await unknown.text()).toBe('CheckID "nope" does not have associated TTL');
    expect((await agent.req("PUT", "/v1/agent/check/register", { TTL: "10s" })).status).toBe(400);
    expect(
      (await agent.req("PUT", "/v1/agent/check/register", { Name: "s", ServiceID: "ghost", TTL: "10s" }))
        .status,
    ).toBe(400);
    expect((await agent.req("PUT", "/v1/agent/check/deregister/nope")).status).toBe(404);
  });

  it("expires to critical when no update comes within the TTL", async () => {
    await agent.req("PUT", "/v1/agent/check/register", { Name: "short", TTL: "150ms" });
    await agent.req("PUT", "/v1/agent/check/pass/short?note=alive");
    expect((await agent.json<Checks>("/v1/agent/checks")).short?.Status).toBe("passing");
    await eventually(
      async () => (await agent.json<Checks>("/v1/agent/checks")).short?.Status === "critical",
      3000,
      "TTL expiry",
    );
    expect((await agent.json<Checks>("/v1/agent/checks")).short?.Output).toBe(
      "TTL expired (last output before timeout follows): alive",
    );
    await eventually(async () =>
      (await healthChecksForNode()).some((c) => c.CheckID === "short" && c.Status === "critical"),
    );
  });
});

const healthChecksForNode = () =>
  agent.json<{ CheckID: string; Status: string }[]>(`/v1/health/node/${NODE.name}`);

describe("maintenance", () => {
  it("node maintenance adds the critical _node_maintenance check, idempotently, and removes it", async () => {
    expect((await agent.req("PUT", "/v1/agent/maintenance")).status).toBe(400);
    expect((await agent.req("PUT", "/v1/agent/maintenance?enable=maybe")).status).toBe(400);
    for (let i = 0; i < 2; i++) {
      expect(
        (await agent.req("PUT", "/v1/agent/maintenance?enable=true&reason=patching%20kernel")).status,
      ).toBe(200);
    }
    const check = (await agent.json<Checks>("/v1/agent/checks"))._node_maintenance;
    expect(check).toMatchObject({ Status: "critical", Notes: "patching kernel" });
    expect((await healthChecksForNode()).filter((c) => c.CheckID === "_node_maintenance")).toHaveLength(1);
    await agent.req("PUT", "/v1/agent/maintenance?enable=false");
    await agent.req("PUT", "/v1/agent/maintenance?enable=false");
    expect((await agent.json<Checks>("/v1/agent/checks"))._node_maintenance).toBeUndefined();
    expect((await healthChecksForNode()).some((c) => c.CheckID === "_node_maintenance")).toBe(false);
  });

  it("service maintenance uses _service_maintenance:<id> with Consul's default reason", async () => {
    await agent.req("PUT", "/v1/agent/service/maintenance/web/eu/1?enable=true");
    const check = (await agent.json<Checks>("/v1/agent/checks"))["_service_maintenance:web/eu/1"];
    expect(check).toMatchObject({ Status: "critical", ServiceID: "web/eu/1" });
    expect(check?.Notes).toBe(
      "Maintenance mode is enabled for this service, but no reason was provided. This is a default message.",
    );
    expect((await healthChecks("web")).some((c) => c.CheckID === "_service_maintenance:web/eu/1")).toBe(true);
    await agent.req("PUT", "/v1/agent/service/maintenance/web/eu/1?enable=false");
    expect((await agent.json<Checks>("/v1/agent/checks"))["_service_maintenance:web/eu/1"]).toBeUndefined();
    expect((await agent.req("PUT", "/v1/agent/service/maintenance/ghost?enable=true")).status).toBe(404);
  });
});

describe("agent control", () => {
  it("/agent/self has the stable Config subset and no secrets", async () => {
    const self = await agent.json<{
      Config: Record<string, unknown>;
      Member: { Name: string };
      Coord: { Vec: number[] };
    }>("/v1/agent/self");
    expect(self.Config).toMatchObject({
      Datacenter: "dc1",
      NodeName: NODE.name,
      NodeID: NODE.id,
      Server: true,
    });
    expect(typeof self.Config.Version).toBe("string");
    expect(self.Member.Name).toBe(NODE.name);
    expect(self.Coord.Vec).toHaveLength(8);
  });

  it("reload reports what could not be reloaded", async () => {
    const res = await agent.req("PUT", "/v1/agent/reload");
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("no configuration files to re-read");
  });

  it("token names: the nine Consul names are accepted, others are 404", async () => {
    for (const name of [
      "default",
      "agent",
      "agent_recovery",
      "agent_master",
      "replication",
      "acl_token",
      "acl_agent_token",
      "acl_agent_master_token",
      "acl_replication_token",
    ]) {
      expect((await agent.req("PUT", `/v1/agent/token/${name}`, { Token: "s3cret" })).status, name).toBe(200);
    }
    const unknown = await agent.req("PUT", "/v1/agent/token/root", { Token: "x" });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('Token "root" is unknown');
  });

  it("metrics: JSON of the current 10 s interval, and Prometheus text", async () => {
    await agent.req("PUT", "/v1/kv/metrics-probe", "x");
    const m = await agent.json<{
      Timestamp: string;
      Gauges: { Name: string }[];
      Points: unknown[];
      Counters: { Name: string; Count: number }[];
      Samples: { Name: string; Labels: Record<string, string>; Count: number; Mean: number }[];
    }>("/v1/agent/metrics");
    expect(m.Timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC$/);
    expect(m.Points).toEqual([]);
    expect(m.Gauges.map((g) => g.Name)).toEqual(
      expect.arrayContaining([
        "consul.runtime.alloc_bytes",
        "consul.rpc.queries_blocking",
        "consul.session_ttl.active",
      ]),
    );
    expect(m.Counters.map((c) => c.Name)).toContain("consul.raft.apply");
    expect(m.Samples.find((s) => s.Name === "consul.kvs.apply")).toMatchObject({ Labels: { op: "kv.set" } });
    expect(m.Samples.find((s) => s.Name === "consul.api.http" && s.Labels.path === "/v1/kv/*")).toMatchObject(
      {
        Labels: { method: "PUT", code: "200" },
      },
    );
    const prom = await agent.req("GET", "/v1/agent/metrics?format=prometheus");
    expect(prom.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await prom.text();
    expect(text).toContain("# TYPE consul_raft_apply counter");
    expect(text).toMatch(/consul_api_http_count\{code="200",method="PUT",path="\/v1\/kv\/\*"\} \d+/);
  });

  it("monitor streams log lines at the asked level and stops on disconnect", async () => {
    const abort = new AbortController();
    const res = await fetch(`${agent.url}/v1/agent/monitor?loglevel=debug`, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect(agent.logs.subscriberCount).toBe(1);
    agent.logs.logger.child({ component: "test" }).debug({ n: 1 }, "a debug line for the monitor");
    let text = "";
    while (!text.includes("a debug line for the monitor")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toMatch(/\[DEBUG\] agent\.test: a debug line for the monitor: n=1/);
    abort.abort();
    await eventually(() => agent.logs.subscriberCount === 0, 3000, "monitor unsubscribe");
    expect((await agent.req("GET", "/v1/agent/monitor?loglevel=loud")).status).toBe(400);
  });

  it("host answers Consul's shape: Memory, CPU, Host, Disk, CollectionTime, Errors", async () => {
    const res = await agent.req("GET", "/v1/agent/host");
    expect(res.status).toBe(200);
    const host = (await res.json()) as Record<string, Record<string, unknown> & Record<string, unknown>[]>;
    expect(Object.keys(host)).toEqual(["Memory", "CPU", "Host", "Disk", "CollectionTime", "Errors"]);
    expect(host.Errors).toBeNull();
    expect(host.Memory).toMatchObject({ total: expect.any(Number), available: expect.any(Number) });
    expect(host.Memory!.total as number).toBeGreaterThan(0);
    expect(host.CPU!.length).toBeGreaterThan(0);
    expect(host.CPU![0]).toMatchObject({ cpu: 0, modelName: expect.any(String), flags: expect.any(Array) });
    expect(host.Host).toMatchObject({
      hostname: expect.any(String),
      os: "linux",
      kernelVersion: expect.any(String),
    });
    expect(host.Disk).toMatchObject({
      path: "/",
      total: expect.any(Number),
      usedPercent: expect.any(Number),
    });
    const collected = host.CollectionTime as unknown as number;
    expect(Math.abs(collected / 1e6 - Date.now())).toBeLessThan(60_000);
  });

  it("monitor?logjson streams Consul's JSON log lines", async () => {
    const abort = new AbortController();
    const res = await fetch(`${agent.url}/v1/agent/monitor?loglevel=info&logjson`, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    agent.logs.logger.child({ component: "test" }).info({ n: 2 }, "a json line for the monitor");
    let text = "";
    while (!text.includes("a json line for the monitor")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    abort.abort();
    const line = text
      .split("\n")
      .filter((l) => l.includes("a json line"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)[0];
    expect(line).toMatchObject({
      "@level": "info",
      "@message": "a json line for the monitor",
      "@module": "agent.test",
      n: 2,
    });
    expect(typeof line?.["@timestamp"]).toBe("string");
    await eventually(() => agent.logs.subscriberCount === 0, 3000, "monitor unsubscribe");
  });
});

describe("local service health (/agent/health/service)", () => {
  it("answers 200, 429 or 503 with the aggregated status, by ID and by name", async () => {
    const lb = await startTestAgent();
    try {
      await lb.req("PUT", "/v1/agent/service/register", {
        Name: "edge",
        ID: "edge/1",
        Check: { CheckID: "edge-ttl", TTL: "30s" },
      });
      await lb.req("PUT", "/v1/agent/service/register", {
        Name: "edge",
        ID: "edge/2",
        Check: { CheckID: "edge2-ttl", TTL: "30s", Status: "passing" },
      });
      const byId = async (format = "") => lb.req("GET", `/v1/agent/health/service/id/edge/1${format}`);
      await lb.req("PUT", "/v1/agent/check/pass/edge-ttl");
      let res = await byId();
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        AggregatedStatus: "passing",
        Service: { ID: "edge/1" },
        Checks: [{ CheckID: "edge-ttl" }],
      });
      await lb.req("PUT", "/v1/agent/check/warn/edge-ttl");
      res = await byId("?format=text");
      expect([res.status, await res.text()]).toEqual([429, "warning"]);
      await lb.req("PUT", "/v1/agent/check/fail/edge-ttl");
      expect((await byId()).status).toBe(503);
      const byName = await lb.req("GET", "/v1/agent/health/service/name/edge");
      expect(byName.status).toBe(503);
      expect(((await byName.json()) as unknown[]).length).toBe(2);
      await lb.req("PUT", "/v1/agent/check/pass/edge-ttl");
      await lb.req("PUT", "/v1/agent/maintenance?enable=true");
      res = await byId("?format=text");
      expect([res.status, await res.text()]).toEqual([503, "maintenance"]);
      expect((await lb.req("GET", "/v1/agent/health/service/id/nope")).status).toBe(404);
      expect((await lb.req("GET", "/v1/agent/health/service/name/nope")).status).toBe(404);
    } finally {
      await lb.close();
    }
  });
});
