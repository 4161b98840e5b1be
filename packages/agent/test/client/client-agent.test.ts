// A real `cairn agent` client process against an in-process server whose RPC port serves the tunnel and
// which gossips in the LAN pool: the client finds it through gossip, serves /v1/agent itself, forwards the
// rest, registers its services in the server's catalog, and leaves the pool on SIGTERM.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentProcess,
  AgentScratch,
  awaitHttp,
  clientFlags,
  freePorts,
  http,
  signal,
  waitFor,
} from "../../../../scripts/lib/index.js";
import { AgentMembership } from "../../src/membership/index.js";
import { agentConfig, FAST } from "../membership/harness.js";
import { ready, startTunnelServer, type TunnelServer } from "../tunnel/harness.js";

const scratch = new AgentScratch();
let server: TunnelServer;
let gossip: AgentMembership;
let client: AgentProcess;

beforeAll(async () => {
  server = await startTunnelServer("srv");
  await ready(server);
  gossip = await AgentMembership.start({
    config: agentConfig("srv"),
    nodeId: server.server.self.id,
    serverPort: Number(server.ref.rpcAddress.split(":")[1]),
    log: pino({ level: "silent" }),
    gossip: FAST,
  });
  const [httpPort, serverPort, serfLan] = await freePorts(3);
  client = scratch.spawn({
    name: "c1",
    ports: { http: httpPort!, server: serverPort!, serfLan: serfLan! },
    flags: [
      ...clientFlags({ name: "c1", dataDir: scratch.path("c1"), join: [gossip.lanAddress] }),
      "-hcl",
      'services = [{ name = "from-config", port = 7000 }]',
    ],
    logFile: scratch.path("c1.log"),
  });
  await awaitHttp(client);
}, AGENT_START_MS + 30_000);

afterAll(async () => {
  await scratch.dispose();
  await gossip?.close();
  await server?.dispose();
});

const catalogServices = () =>
  (server.server.store.view().node("c1").value?.services ?? []).map((s) => s.Service).sort();

describe("a client agent process", () => {
  it("serves /v1/agent/self as a client and sees the server in its LAN pool", async () => {
    const self = await waitFor(
      "the client's HTTP API",
      async () => {
        const r = await http(`${client.url}/v1/agent/self`).catch(() => undefined);
        return r?.status === 200
          ? (JSON.parse(r.text) as {
              Config: { Server: boolean; NodeName: string };
              Member: { Tags: Record<string, string> };
            })
          : undefined;
      },
      20_000,
    );
    expect(self.Config).toMatchObject({ Server: false, NodeName: "c1" });
    expect(self.Member.Tags.role).toBe("node");
    expect(self.Member.Tags.port).toBeUndefined();
    const members = await waitFor("both members alive", async () => {
      const list = JSON.parse((await http(`${client.url}/v1/agent/members`)).text) as {
        Name: string;
        Status: number;
        Tags: Record<string, string>;
      }[];
      return list.filter((m) => m.Status === 1).length === 2 ? list : undefined;
    });
    expect(members.find((m) => m.Name === "c1")?.Tags.role).toBe("node");
    expect(members.find((m) => m.Name === "srv")?.Tags.role).toBe("consul");
    // Member is the record /v1/agent/members shows for this agent; Stats and DebugConfig by Consul's names.
    const again = JSON.parse((await http(`${client.url}/v1/agent/self`)).text) as {
      Member: unknown;
      Stats: Record<string, Record<string, string>>;
      DebugConfig: Record<string, unknown>;
    };
    expect(again.Member).toEqual(members.find((m) => m.Name === "c1"));
    expect(again.Stats.consul).toEqual({ acl: "disabled", known_servers: "1", server: "false" });
    expect(again.Stats.serf_lan).toMatchObject({ members: "2", failed: "0" });
    expect(again.Stats.raft).toBeUndefined();
    expect(again.DebugConfig).toMatchObject({
      NodeName: "c1",
      ServerMode: false,
      SerfAdvertiseAddrLAN: `tcp://127.0.0.1:${client.options.ports.serfLan}`,
    });
  }, 30_000);

  it("forwards KV writes and reads to the server", async () => {
    const put = await waitFor("a KV write through the client", async () => {
      const r = await http(`${client.url}/v1/kv/from-client`, "PUT", "hello");
      return r.status === 200 ? r : undefined;
    });
    expect(put.text).toBe("true");
    expect((await http(`${client.url}/v1/kv/from-client?raw`)).text).toBe("hello");
    const leader = await http(`${client.url}/v1/status/leader`);
    expect(JSON.parse(leader.text)).toBe(server.ref.rpcAddress);
  });

  it("registers its configured and API services in the server's catalog, and deregisters them", async () => {
    await waitFor("the configured service in the catalog", async () =>
      catalogServices().includes("from-config") ? true : undefined,
    );
    const body = JSON.stringify({ Name: "api", Port: 8080, Check: { TTL: "30s" } });
    expect((await http(`${client.url}/v1/agent/service/register`, "PUT", body)).status).toBe(200);
    // The agent answers once the catalog has the change, or after syncWaitMs (2 s) while anti-entropy goes on.
    await waitFor("the API service in the catalog", async () =>
      catalogServices().join() === "api,from-config" ? true : undefined,
    );
    const health = JSON.parse((await http(`${client.url}/v1/health/service/api`)).text) as {
      Node: { Node: string };
      Checks: { Status: string }[];
    }[];
    expect(health).toHaveLength(1);
    expect(health[0]!.Node.Node).toBe("c1");
    expect(health[0]!.Checks.map((c) => c.Status)).toContain("critical");
    expect((await http(`${client.url}/v1/agent/check/pass/service:api`, "PUT")).status).toBe(200);
    await waitFor("the API service passing in the catalog", async () => {
      const r = await http(`${client.url}/v1/health/service/api?passing`);
      return (JSON.parse(r.text) as unknown[]).length === 1 ? true : undefined;
    });
    expect((await http(`${client.url}/v1/agent/service/deregister/api`, "PUT")).status).toBe(200);
    await waitFor("the API service gone from the catalog", async () =>
      catalogServices().join() === "from-config" ? true : undefined,
    );
  });

  it("runs an alias check of a catalog service through blocking queries made via a server", async () => {
    const register = (status: string) =>
      http(
        `${client.url}/v1/catalog/register`,
        "PUT",
        JSON.stringify({
          Node: "ext",
          Address: "10.1.1.1",
          Service: { ID: "db", Service: "db" },
          Check: { CheckID: "db-up", Name: "db up", Status: status, Output: status, ServiceID: "db" },
        }),
      );
    expect((await register("passing")).status).toBe(200);
    const alias = JSON.stringify({ Name: "ext-db", AliasNode: "ext", AliasService: "db" });
    expect((await http(`${client.url}/v1/agent/check/register`, "PUT", alias)).status).toBe(200);
    const aliasOutput = async () => {
      const checks = JSON.parse((await http(`${client.url}/v1/agent/checks`)).text) as Record<
        string,
        { Status: string; Output: string }
      >;
      return checks["ext-db"];
    };
    await waitFor("the alias passing", async () =>
      (await aliasOutput())?.Status === "passing" ? true : undefined,
    );
    expect((await register("critical")).status).toBe(200);
    await waitFor("the alias following the catalog to critical", async () =>
      (await aliasOutput())?.Output === 'Aliased check "db up" failing: critical' ? true : undefined,
    );
    expect((await http(`${client.url}/v1/agent/check/deregister/ext-db`, "PUT")).status).toBe(200);
  });

  it("leaves the LAN pool gracefully on SIGTERM and exits 0", async () => {
    signal(client.process, "SIGTERM");
    expect(await client.process.exited).toBe(0);
    await waitFor("the client to be left", async () =>
      gossip.lanMembers().find((m) => m.name === "c1")?.status === "left" ? true : undefined,
    );
  }, 20_000);
});
