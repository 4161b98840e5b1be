// DNS on an agent with ACLs on (default deny): lookups use the agent's default token and see only what its
// service:read / node:read rules allow, as HTTP reads with that token do.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  AgentScratch,
  freePorts,
  http,
  serverFlags,
  waitFor,
} from "../../../scripts/lib/index.js";
import { dig } from "./dig.js";

const scratch = new AgentScratch();
let server: AgentProcess;
let dnsPort: number;
const ROOT = "11111111-2222-3333-4444-555555555555";
const DEFAULT = "66666666-7777-8888-9999-000000000000";

const call = async (method: string, path: string, body: unknown) => {
  const r = await http(`${server.url}${path}`, method, JSON.stringify(body), {
    headers: { "X-Consul-Token": ROOT },
  });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
};

beforeAll(async () => {
  const [httpPort, rpc, lan, dns] = await freePorts(4);
  dnsPort = dns!;
  server = scratch.spawn({
    name: "s1",
    ports: { http: httpPort!, server: rpc!, serfLan: lan! },
    flags: [
      ...serverFlags({ name: "s1", dataDir: scratch.path("s1"), bootstrapExpect: 1 }),
      "-dns-port",
      String(dnsPort),
      "-hcl",
      `acl { enabled = true, default_policy = "deny", tokens { initial_management = "${ROOT}", default = "${DEFAULT}" } }`,
    ],
    logFile: scratch.path("s1.log"),
  });
  await waitFor(
    "the management token to work",
    async () => {
      const r = await http(`${server.url}/v1/acl/token/self`, "GET", undefined, {
        headers: { "X-Consul-Token": ROOT },
      }).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    },
    60_000,
  );
  await call("PUT", "/v1/acl/policy", {
    Name: "dns",
    Rules: 'service "web" { policy = "read" }\nnode_prefix "" { policy = "read" }',
  });
  await call("PUT", "/v1/acl/token", { SecretID: DEFAULT, Policies: [{ Name: "dns" }] });
  for (const [node, address, service] of [
    ["n1", "10.0.0.1", "web"],
    ["n2", "10.0.0.2", "db"],
  ] as const) {
    await call("PUT", "/v1/catalog/register", {
      Node: node,
      Address: address,
      Service: { Service: service, Port: 80 },
    });
  }
}, 120_000);

afterAll(async () => {
  await scratch.dispose();
});

describe("DNS with ACLs", () => {
  it("answers what the default token may read, and nothing else", async () => {
    const web = await waitFor("web over DNS", async () => {
      const r = await dig(dnsPort, "web.service.consul");
      return r.answer.length > 0 ? r : undefined;
    });
    expect(web.answer.map((a) => a.data)).toEqual(["10.0.0.1"]);
    expect((await dig(dnsPort, "db.service.consul")).status).toBe("NXDOMAIN");
    expect((await dig(dnsPort, "n2.node.consul")).answer.map((a) => a.data)).toEqual(["10.0.0.2"]);
  });
});
