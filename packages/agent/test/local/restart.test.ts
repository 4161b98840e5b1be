// A real agent process restarted with the same data directory: maintenance mode, API registrations and
// persisted agent tokens come back; config-file services are re-read by /agent/reload.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type AgentPorts,
  AgentScratch,
  awaitHttp,
  freePorts,
  http,
  serverFlags,
  stop,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
afterAll(() => scratch.dispose());

async function start(name: string, ports: AgentPorts, dataDir: string, config: string) {
  const agent = scratch.spawn({
    name,
    ports,
    flags: [...serverFlags({ name, dataDir, raftMultiplier: 1 }), "-bootstrap", "-config-file", config],
    logFile: `${dataDir}.log`,
  });
  // Ready once the agent's own node is in the catalog (a leader exists and anti-entropy ran), timed from
  // when it serves HTTP: a cold start on a loaded machine takes its own, longer, deadline.
  await awaitHttp(agent);
  await waitFor(
    "the agent's node in the catalog",
    async () => {
      const res = await http(`${agent.url}/v1/catalog/node/${name}`);
      return res.status === 200 && res.text.includes(name) ? true : undefined;
    },
    20_000,
  );
  return agent;
}

describe("agent restart with the same data directory", () => {
  it("keeps maintenance mode, API services and persisted tokens; reload re-reads config services", async () => {
    const [httpPort = 0, server = 0, serfLan = 0] = await freePorts(3);
    const ports = { http: httpPort, server, serfLan };
    const dataDir = scratch.path("a");
    const config = scratch.path("agent.json");
    const writeConfig = (services: unknown[]) =>
      writeFileSync(
        config,
        JSON.stringify({ acl: { enabled: true, enable_token_persistence: true }, services }),
      );
    writeConfig([{ name: "from-file", port: 1 }]);

    let agent = await start("restart-node", ports, dataDir, config);
    expect(
      (await http(`${agent.url}/v1/agent/maintenance?enable=true&reason=disk%20swap`, "PUT")).status,
    ).toBe(200);
    expect(
      (
        await http(
          `${agent.url}/v1/agent/service/register`,
          "PUT",
          JSON.stringify({ Name: "api", ID: "api/1" }),
        )
      ).status,
    ).toBe(200);
    expect(
      (await http(`${agent.url}/v1/agent/token/agent`, "PUT", JSON.stringify({ Token: "t0k3n" }))).status,
    ).toBe(200);
    const services = JSON.parse((await http(`${agent.url}/v1/agent/services`)).text) as Record<
      string,
      unknown
    >;
    expect(Object.keys(services).sort()).toEqual(["api/1", "from-file"]);

    // Prometheus text needs telemetry.prometheus_retention_time, as in Consul.
    const prometheus = await http(`${agent.url}/v1/agent/metrics?format=prometheus`);
    expect(prometheus.status).toBe(415);
    const metrics = JSON.parse((await http(`${agent.url}/v1/agent/metrics`)).text) as {
      Gauges: { Name: string }[];
    };
    expect(metrics.Gauges.map((g) => g.Name)).toContain("consul.runtime.alloc_bytes");

    writeConfig([{ name: "reloaded", port: 2 }]);
    expect((await http(`${agent.url}/v1/agent/reload`, "PUT")).status).toBe(200);
    const afterReload = JSON.parse((await http(`${agent.url}/v1/agent/services`)).text) as Record<
      string,
      unknown
    >;
    expect(Object.keys(afterReload).sort()).toEqual(["api/1", "reloaded"]);
    await stop(agent.process, 15_000);

    agent = await start("restart-node", ports, dataDir, config);
    const checks = JSON.parse((await http(`${agent.url}/v1/agent/checks`)).text) as Record<
      string,
      { Notes: string }
    >;
    expect(checks._node_maintenance?.Notes).toBe("disk swap");
    // The catalog gets it through anti-entropy, which may run after the readiness check above.
    const restarted = agent;
    await waitFor(
      "the maintenance check in the catalog",
      async () => {
        const r = await http(`${restarted.url}/v1/health/node/restart-node`);
        const health = JSON.parse(r.text) as { CheckID: string }[];
        return health.some((c) => c.CheckID === "_node_maintenance") ? true : undefined;
      },
      10_000,
    );
    const restored = JSON.parse((await http(`${agent.url}/v1/agent/services`)).text) as Record<
      string,
      unknown
    >;
    expect(Object.keys(restored).sort()).toEqual(["api/1", "reloaded"]);
    // Maintenance enabled again is idempotent; the persisted token file holds the token.
    expect((await http(`${agent.url}/v1/agent/maintenance?enable=true`, "PUT")).status).toBe(200);
    const tokens = JSON.parse(
      (await import("node:fs")).readFileSync(join(dataDir, "acl-tokens.json"), "utf8"),
    ) as Record<string, string>;
    expect(tokens.agent).toBe("t0k3n");
    await stop(agent.process, 15_000);
  }, 120_000);
});
