// ACLs on a client agent, with real processes: a server with ACLs on (default deny) and policies made
// through its API, and a client agent whose own endpoints resolve tokens through the server, whose
// anti-entropy writes each service with the token it was registered with (node info with its agent
// token), and which falls back to its cache when the server is gone.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentProcess,
  AgentScratch,
  aclHcl,
  awaitHttp,
  clientFlags,
  freePorts,
  http,
  kill,
  tokenWith as sharedTokenWith,
  sleep,
  startAclServer,
  waitFor,
} from "../../../../scripts/lib/index.js";

const ROOT = "00000000-0000-4000-8000-0000000000aa";
const AGENT = "00000000-0000-4000-8000-000000000001";
const READER = "00000000-0000-4000-8000-000000000002";
const WEB = "00000000-0000-4000-8000-000000000003";
const EVENTS = "00000000-0000-4000-8000-000000000004";
const UNUSED = "00000000-0000-4000-8000-000000000005";
const RECOVERY = "00000000-0000-4000-8000-000000000006";
const UNKNOWN = "00000000-0000-4000-8000-0000000000ff";

const scratch = new AgentScratch();
let server: AgentProcess;
let client: AgentProcess;

async function call(agent: AgentProcess, method: string, path: string, token?: string, body?: unknown) {
  return http(`${agent.url}${path}`, method, body === undefined ? undefined : JSON.stringify(body), {
    headers: token ? { "X-Consul-Token": token } : {},
  });
}

const tokenWith = (secret: string, name: string, rules: string) =>
  sharedTokenWith(server, ROOT, secret, name, rules);

beforeAll(
  async () => {
    const [http1, rpc1, serf1, http2, rpc2, serf2] = await freePorts(6);
    server = await startAclServer(scratch, ROOT, { http: http1!, server: rpc1!, serfLan: serf1! });
    // The agent token may write the node, and no service: services reach the catalog with their own tokens.
    await tokenWith(AGENT, "agent-c1", `node "c1" { policy = "write" }`);
    await tokenWith(READER, "reader", `agent "c1" { policy = "read" }`);
    await tokenWith(WEB, "web", `service "web" { policy = "write" }`);
    await tokenWith(EVENTS, "events", `event "deploy" { policy = "write" }`);
    await tokenWith(UNUSED, "unused", `agent "c1" { policy = "read" }`);
    client = scratch.spawn({
      name: "c1",
      ports: { http: http2!, server: rpc2!, serfLan: serf2! },
      flags: [
        ...clientFlags({ name: "c1", dataDir: scratch.path("c1"), join: [`127.0.0.1:${serf1}`] }),
        // A service from the configuration with no token: it syncs with the default token (here none).
        "-hcl",
        'service { name = "quiet"\n port = 81 }',
        "-hcl",
        // A short TTL so the server's disappearance is noticed within the test (Consul's default is 30 s).
        aclHcl(
          `agent = "${AGENT}"\n agent_recovery = "${RECOVERY}"`,
          ' token_ttl = "1s"\n down_policy = "extend-cache"',
        ),
      ],
      logFile: scratch.path("c1.log"),
    });
    await awaitHttp(client);
    await waitFor(
      "the client to reach the server",
      async () => ((await call(client, "GET", "/v1/agent/self", READER)).status === 200 ? true : undefined),
      20_000,
    );
  },
  2 * AGENT_START_MS + 40_000,
);

afterAll(async () => {
  await scratch.dispose();
});

const catalogNodes = async (service: string) =>
  (
    JSON.parse((await call(client, "GET", `/v1/catalog/service/${service}`, ROOT)).text) as { Node: string }[]
  ).map((e) => e.Node);

describe("a client agent with ACLs on", () => {
  it("answers /v1/agent/self only to a token with agent:read, and an unknown one with ACL not found", async () => {
    const anonymous = await call(client, "GET", "/v1/agent/self");
    expect(anonymous.status).toBe(403);
    expect(anonymous.text).toContain("Permission denied");
    const self = await call(client, "GET", "/v1/agent/self", READER);
    expect(self.status).toBe(200);
    expect(JSON.parse(self.text).Config).toMatchObject({ NodeName: "c1", Server: false });
    const unknown = await call(client, "GET", "/v1/agent/self", UNKNOWN);
    expect(unknown.status).toBe(403);
    expect(unknown.text).toContain("ACL not found");
    expect((await call(client, "GET", `/v1/agent/self?token=${READER}`)).status).toBe(200);
  });

  it("refuses a service registration without service:write; with it, anti-entropy puts it in the catalog", async () => {
    const service = { Name: "web", Port: 80, Check: { TTL: "30s" } };
    const refused = await call(client, "PUT", "/v1/agent/service/register", READER, service);
    expect(refused.status).toBe(403);
    expect((await call(client, "PUT", "/v1/agent/service/register", WEB, service)).status).toBe(200);
    // The agent token (node:write on c1 only) writes the node, the service's own token the service.
    await waitFor("web on c1 in the catalog", async () =>
      (await catalogNodes("web")).includes("c1") ? true : undefined,
    );
    const health = JSON.parse((await call(server, "GET", "/v1/health/service/web", ROOT)).text) as {
      Checks: { CheckID: string }[];
    }[];
    expect(health[0]!.Checks.map((c) => c.CheckID)).toContain("service:web");
    expect((await call(client, "PUT", "/v1/agent/service/deregister/web", WEB)).status).toBe(200);
    // Its removal goes with the agent token, whose node:write on c1 covers it.
    await waitFor("web gone from the catalog", async () =>
      (await catalogNodes("web")).length === 0 ? true : undefined,
    );
  });

  it("keeps a service registered with no token out of the catalog when the agent token lacks service:write", async () => {
    expect((await call(client, "GET", "/v1/agent/service/quiet", ROOT)).status).toBe(200);
    // Synced (and refused) at start and again with each later change, web's above among them.
    expect(await catalogNodes("quiet")).toEqual([]);
    const services = JSON.parse((await call(server, "GET", "/v1/catalog/node/c1", ROOT)).text) as {
      Node: { Node: string };
      Services: Record<string, unknown>;
    };
    expect(services.Node.Node).toBe("c1");
    expect(Object.keys(services.Services)).toEqual([]);
    const log = readFileSync(scratch.path("c1.log"), "utf8");
    expect(log).toMatch(/register service quiet.*blocked by ACLs|blocked by ACLs.*register service quiet/);
    // One path: the server refused it with the very words its HTTP endpoint answers the same registration
    // with (the agent's default token, here none: anonymous).
    const line = log.split("\n").find((l) => l.includes("blocked by ACLs") && l.includes("service quiet"));
    const quoted = /reason=("(?:[^"\\]|\\.)*"|\S+)/.exec(line ?? "")?.[1] ?? "";
    const reason = quoted.startsWith('"') ? (JSON.parse(quoted) as string) : quoted;
    const overHttp = await call(server, "PUT", "/v1/catalog/register", undefined, {
      Node: "c1",
      Address: "127.0.0.1",
      SkipNodeUpdate: true,
      Service: { Service: "quiet", Port: 81 },
    });
    expect(overHttp.status).toBe(403);
    expect(reason).toBe(overHttp.text);
  });

  it("fires a user event only for a token with event:write", async () => {
    expect((await call(client, "PUT", "/v1/event/fire/deploy", READER)).status).toBe(403);
    const fired = await call(client, "PUT", "/v1/event/fire/deploy", EVENTS);
    expect(fired.status).toBe(200);
    expect(JSON.parse(fired.text).Name).toBe("deploy");
  });

  it("applies the agent's default token to requests without one", async () => {
    expect((await call(client, "PUT", "/v1/agent/token/default", READER, { Token: READER })).status).toBe(
      403,
    );
    expect((await call(client, "PUT", "/v1/agent/token/default", ROOT, { Token: READER })).status).toBe(200);
    expect((await call(client, "GET", "/v1/agent/self")).status).toBe(200);
    expect((await call(client, "PUT", "/v1/agent/token/default", ROOT, { Token: "" })).status).toBe(200);
    expect((await call(client, "GET", "/v1/agent/self")).status).toBe(403);
  });

  it("with the server gone, extends its cached tokens and denies tokens it never resolved", async () => {
    await kill(server.process);
    await sleep(1_500);
    expect((await call(client, "GET", "/v1/agent/self", READER)).status).toBe(200);
    expect((await call(client, "GET", "/v1/agent/self", UNUSED)).status).toBe(403);
    // The agent recovery token needs no server: agent:write on this agent, nothing more.
    expect((await call(client, "GET", "/v1/agent/self", RECOVERY)).status).toBe(200);
    expect((await call(client, "PUT", "/v1/event/fire/deploy", RECOVERY)).status).toBe(403);
  }, 20_000);
});
