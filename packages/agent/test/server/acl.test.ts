// A server agent with ACLs on: the leader creates the initial management token, every endpoint enforces,
// and no secret shows in /v1/agent/self.
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentProcess,
  AgentScratch,
  awaitHttp,
  freePorts,
  http,
  waitFor,
} from "../../../../scripts/lib/index.js";

const ROOT = "4b3e6c55-1111-2222-3333-444455556666";
const scratch = new AgentScratch();
let agent: AgentProcess | undefined;

afterAll(() => scratch.dispose());

function call(method: string, path: string, token?: string, body?: string) {
  const headers: Record<string, string> = token ? { "X-Consul-Token": token } : {};
  return http(`${agent!.url}${path}`, method, body, { headers, timeoutMs: 10_000 });
}

describe("cairn agent with ACLs on", () => {
  it("enforces tokens from the initial management token on, and keeps secrets out of /agent/self", {
    timeout: AGENT_START_MS + 40_000,
  }, async () => {
    const [httpPort, serverPort] = await freePorts(2);
    agent = scratch.spawn({
      name: "acl",
      ports: { http: httpPort!, server: serverPort! },
      flags: [
        "-dev",
        "-hcl",
        `acl { enabled = true\n default_policy = "deny"\n tokens { initial_management = "${ROOT}"\n agent = "${ROOT}" } }`,
      ],
      logFile: scratch.path("acl.log"),
    });
    await awaitHttp(agent);
    await waitFor(
      "the initial management token",
      async () => ((await call("GET", "/v1/acl/token/self", ROOT)).status === 200 ? true : undefined),
      20_000,
    );
    expect((await call("PUT", "/v1/kv/app", undefined, "x")).status).toBe(403);
    expect((await call("PUT", "/v1/kv/app", "nope", "x")).text).toBe("ACL not found");
    expect((await call("PUT", "/v1/kv/app", ROOT, "x")).status).toBe(200);
    expect((await call("PUT", "/v1/acl/bootstrap")).status).toBe(403);
    expect((await call("GET", "/v1/agent/self")).status).toBe(403);
    const self = await call("GET", "/v1/agent/self", ROOT);
    expect(self.status).toBe(200);
    expect(self.text).not.toContain(ROOT);
    expect((await call("GET", "/v1/operator/raft/configuration")).status).toBe(403);
    expect((await call("GET", "/v1/operator/raft/configuration", ROOT)).status).toBe(200);

    // The /v1/agent endpoints, each with a token holding exactly its cell and one holding nothing.
    const tokenWith = async (rules: string) => {
      const p = await call(
        "PUT",
        "/v1/acl/policy",
        ROOT,
        JSON.stringify({ Name: `p${Math.random()}`.replace(".", ""), Rules: rules }),
      );
      const id = (JSON.parse(p.text) as { ID: string }).ID;
      const t = await call("PUT", "/v1/acl/token", ROOT, JSON.stringify({ Policies: [{ ID: id }] }));
      return (JSON.parse(t.text) as { SecretID: string }).SecretID;
    };
    const none = await tokenWith('key "unrelated" { policy = "read" }');
    const cells: Array<[string, string, string, string?]> = [
      [
        "PUT",
        "/v1/agent/service/register",
        'service "web" { policy = "write" }',
        JSON.stringify({ Name: "web", Port: 80 }),
      ],
      ["PUT", "/v1/agent/reload", 'agent_prefix "" { policy = "write" }'],
      ["PUT", "/v1/agent/maintenance?enable=false", 'node_prefix "" { policy = "write" }'],
      ["GET", "/v1/agent/metrics", 'agent_prefix "" { policy = "read" }'],
      ["GET", "/v1/agent/host", 'operator = "read"'],
    ];
    for (const [method, path, rules, body] of cells) {
      expect((await call(method, path, none, body)).status, path).toBe(403);
      const granted = await call(method, path, await tokenWith(rules), body);
      expect(granted.status, `${path}: ${granted.text}`).toBe(200);
    }
    // The keyring needs keyring:read (list) and keyring:write (changes); without -encrypt the agent has no
    // keyring, which every member reports as Consul's Serf does.
    expect((await call("GET", "/v1/operator/keyring", none)).status).toBe(403);
    const keyReader = await tokenWith('keyring = "read"');
    const listed = await call("GET", "/v1/operator/keyring", keyReader);
    expect(listed.status).toBe(500);
    expect(listed.text).toMatch(/Keyring is empty \(encryption not enabled\)/);
    const install = JSON.stringify({ Key: Buffer.alloc(16, 1).toString("base64") });
    expect((await call("POST", "/v1/operator/keyring", keyReader, install)).status).toBe(403);
    const keyWriter = await tokenWith('keyring = "write"');
    expect((await call("POST", "/v1/operator/keyring", keyWriter, install)).text).toMatch(
      /No keyring to modify/,
    );

    // Lists filter: the web service is left out for a token that may not read it.
    expect(JSON.parse((await call("GET", "/v1/agent/services", none)).text)).toEqual({});
    expect(Object.keys(JSON.parse((await call("GET", "/v1/agent/services", ROOT)).text))).toContain("web");

    // A default token set through /v1/agent/token/default is what token-less requests act with, at once.
    expect((await call("GET", "/v1/kv/app")).status).toBe(403);
    const reader = await tokenWith('key_prefix "app" { policy = "read" }');
    const set = await call("PUT", "/v1/agent/token/default", ROOT, JSON.stringify({ Token: reader }));
    expect(set.status).toBe(200);
    expect((await call("GET", "/v1/kv/app")).status).toBe(200);
    expect((await call("PUT", "/v1/kv/app", undefined, "y")).status).toBe(403);
  });
});
