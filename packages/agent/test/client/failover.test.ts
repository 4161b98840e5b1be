// A client agent process with two servers in its LAN pool (two separate single-server clusters, so the
// answers show which one served): when the server it uses stops, it moves to the other one and keeps
// answering.
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
  waitFor,
} from "../../../../scripts/lib/index.js";
import { AgentMembership } from "../../src/membership/index.js";
import { agentConfig, FAST } from "../membership/harness.js";
import { ready, startTunnelServer, type TunnelServer } from "../tunnel/harness.js";

const scratch = new AgentScratch();
const servers: { tunnel: TunnelServer; gossip: AgentMembership }[] = [];
let client: AgentProcess;

async function startServer(name: string): Promise<void> {
  const tunnel = await startTunnelServer(name);
  await ready(tunnel);
  const gossip = await AgentMembership.start({
    config: agentConfig(name),
    nodeId: tunnel.server.self.id,
    serverPort: Number(tunnel.ref.rpcAddress.split(":")[1]),
    log: pino({ level: "silent" }),
    gossip: FAST,
  });
  servers.push({ tunnel, gossip });
}

beforeAll(async () => {
  await Promise.all([startServer("fa"), startServer("fb")]);
  await servers[1]!.gossip.join([servers[0]!.gossip.lanAddress], { wan: false });
  const [httpPort, serverPort, serfLan] = await freePorts(3);
  client = scratch.spawn({
    name: "fc",
    ports: { http: httpPort!, server: serverPort!, serfLan: serfLan! },
    flags: [
      ...clientFlags({ name: "fc", dataDir: scratch.path("fc"), join: [servers[0]!.gossip.lanAddress] }),
      ...["-hcl", 'services = [{ name = "svc", port = 1 }]'],
    ],
    logFile: scratch.path("fc.log"),
  });
  await awaitHttp(client);
}, AGENT_START_MS + 30_000);

afterAll(async () => {
  await scratch.dispose();
  await Promise.all(
    servers.map(async (s) => {
      await s.gossip.close();
      await s.tunnel.dispose();
    }),
  );
});

/** The server whose catalog holds the client's service. */
const holder = () =>
  servers.find((s) =>
    s.tunnel.server.store
      .view()
      .node("fc")
      .value?.services.some((x) => x.Service === "svc"),
  );

describe("a client agent whose server goes away", () => {
  it("moves to the other server, which then answers", async () => {
    const first = await waitFor("the client's service in a catalog", async () => holder(), 30_000);
    const leader = JSON.parse((await http(`${client.url}/v1/status/leader`)).text) as string;
    expect(leader).toBe(first.tunnel.ref.rpcAddress);
    await first.gossip.close();
    await first.tunnel.stop();
    const other = servers.find((s) => s !== first)!;
    await waitFor("answers from the other server", async () => {
      const r = await http(`${client.url}/v1/status/leader`);
      return r.status === 200 && JSON.parse(r.text) === other.tunnel.ref.rpcAddress ? true : undefined;
    });
  }, 60_000);
});
