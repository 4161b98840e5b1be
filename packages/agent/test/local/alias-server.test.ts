// A real server agent process: an alias check of a catalog service, followed through the server's own API,
// and the new check kinds registered through the API kept across a restart with the same data directory.
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

async function start(name: string, ports: AgentPorts, dataDir: string) {
  const agent = scratch.spawn({
    name,
    ports,
    flags: [...serverFlags({ name, dataDir, raftMultiplier: 1 }), "-bootstrap"],
    logFile: `${dataDir}.log`,
  });
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

type Checks = Record<string, { Status: string; Output: string; Type: string }>;

describe("alias and gRPC checks on a server agent process", () => {
  it("follows a catalog service, and keeps API-registered checks of the new kinds across a restart", async () => {
    const [httpPort = 0, server = 0, serfLan = 0] = await freePorts(3);
    const ports = { http: httpPort, server, serfLan };
    const dataDir = scratch.path("s");
    let agent = await start("alias-srv", ports, dataDir);
    const put = async (path: string, body: unknown) => {
      const res = await http(`${agent.url}${path}`, "PUT", JSON.stringify(body));
      expect(res.status, res.text).toBe(200);
    };
    const registerExt = (status: string) =>
      put("/v1/catalog/register", {
        Node: "ext",
        Address: "10.1.1.1",
        Service: { ID: "db", Service: "db" },
        Check: { CheckID: "db-up", Name: "db up", Status: status, Output: status, ServiceID: "db" },
      });
    const check = async (id: string) =>
      (JSON.parse((await http(`${agent.url}/v1/agent/checks`)).text) as Checks)[id];
    const until = (id: string, ok: (c: Checks[string] | undefined) => boolean) =>
      waitFor(`${id}`, async () => (ok(await check(id)) ? true : undefined), 20_000);

    await registerExt("passing");
    await put("/v1/agent/check/register", { Name: "ext-db", AliasNode: "ext", AliasService: "db" });
    await put("/v1/agent/check/register", { Name: "grpc-nowhere", GRPC: "127.0.0.1:1/x", Interval: "1s" });
    await until("ext-db", (c) => c?.Status === "passing");
    await registerExt("warning");
    await until("ext-db", (c) => c?.Output === 'Aliased check "db up" failing: warning');
    expect((await check("ext-db"))?.Status).toBe("warning");

    await stop(agent.process, 15_000);
    agent = await start("alias-srv", ports, dataDir);
    await until("ext-db", (c) => c?.Status === "warning" && c.Type === "alias");
    await until(
      "grpc-nowhere",
      (c) => c?.Type === "grpc" && c.Output.startsWith("rpc error: code = Unavailable"),
    );
    await registerExt("passing");
    await until("ext-db", (c) => c?.Status === "passing");
    await stop(agent.process, 15_000);
  }, 90_000);
});
