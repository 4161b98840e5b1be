// Records as Consul's open-source edition writes them in the default namespace (no Namespace, no Partition)
// and as Enterprise writes them elsewhere (Namespace named), on every endpoint that returns records; and the
// consul-network-segment node meta Consul's agent registers. One real -dev agent with ACLs on.
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentProcess,
  AgentScratch,
  awaitHttp,
  freePorts,
  http,
  waitFor,
} from "../../../../scripts/lib/index.js";

const ROOT = "5d1c2f3e-aaaa-bbbb-cccc-444455556666";
const NODE = "oss";
const scratch = new AgentScratch();
let agent: AgentProcess;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  const r = await http(`${agent.url}${path}`, method, text, {
    headers: { "X-Consul-Token": ROOT },
    timeoutMs: 10_000,
  });
  return { status: r.status, text: r.text };
}

async function ok(method: string, path: string, body?: unknown): Promise<Json> {
  const r = await call(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(200);
  return r.text === "" ? null : (JSON.parse(r.text) as Json);
}

/** Free-form maps: their keys are the user's, so a key named Namespace there is data. */
const FREE_FORM = new Set(["Meta", "NodeMeta", "ServiceMeta", "Config", "TaggedAddresses", "Header"]);

/** Every `Namespace`/`Partition` member in `value` outside free-form maps, with its path. */
function scopeMembers(value: Json, path = "$", out: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) scopeMembers(v, `${path}[${i}]`, out);
  } else if (value !== null && typeof value === "object") {
    for (const [key, member] of Object.entries(value)) {
      if (key === "Namespace" || key === "Partition") out.push(`${path}.${key}=${JSON.stringify(member)}`);
      if (!FREE_FORM.has(key)) scopeMembers(member, `${path}.${key}`, out);
    }
  }
  return out;
}

const ids: Record<string, string> = {};

/** The same set of records, created in namespace `ns` (suffix `?ns=…` on every write). */
async function seed(ns: string, publicKey: string): Promise<void> {
  const q = `?ns=${ns}`;
  await ok("PUT", `/v1/kv/app/config${q}`, "v");
  ids[`session-${ns}`] = ((await ok("PUT", `/v1/session/create${q}`, { Name: "s" })) as { ID: string }).ID;
  await ok("PUT", `/v1/kv/app/lock${q}&acquire=${ids[`session-${ns}`]}`, "held");
  await ok("PUT", "/v1/catalog/register", {
    Node: "ext",
    Address: "10.0.0.9",
    // A user's meta key that happens to read like the field stays as written.
    NodeMeta: { Namespace: "default" },
    Service: { ID: `db-${ns}`, Service: "db", Port: 5432, Namespace: ns, Meta: { Namespace: "default" } },
    Checks: [{ CheckID: `db-${ns}`, Name: "db", ServiceID: `db-${ns}`, Status: "passing", Namespace: ns }],
  });
  await ok("PUT", "/v1/agent/service/register", {
    Name: "web",
    ID: `web-${ns}`,
    Port: 80,
    Namespace: ns,
    Check: { TTL: "30s" },
  });
  await ok("PUT", `/v1/agent/check/pass/service:web-${ns}`);
  await ok("PUT", `/v1/config${q}`, { Kind: "service-defaults", Name: "db", Protocol: "tcp" });
  await ok("PUT", `/v1/config${q}`, {
    Kind: "service-intentions",
    Name: "db",
    Sources: [{ Name: "web", Action: "allow" }],
  });
  const policy = (await ok("PUT", `/v1/acl/policy${q}`, {
    Name: `p-${ns}`,
    Rules: 'key "" { policy = "read" }',
  })) as {
    ID: string;
  };
  ids[`policy-${ns}`] = policy.ID;
  ids[`role-${ns}`] = (
    (await ok("PUT", `/v1/acl/role${q}`, { Name: `r-${ns}`, Policies: [{ ID: policy.ID }] })) as {
      ID: string;
    }
  ).ID;
  ids[`token-${ns}`] = (
    (await ok("PUT", `/v1/acl/token${q}`, { Policies: [{ ID: policy.ID }] })) as {
      AccessorID: string;
    }
  ).AccessorID;
  await ok("PUT", `/v1/acl/auth-method${q}`, {
    Name: `jwt-${ns}`,
    Type: "jwt",
    Config: { JWTValidationPubKeys: [publicKey], BoundAudiences: ["cairn"] },
  });
  ids[`rule-${ns}`] = (
    (await ok("PUT", `/v1/acl/binding-rule${q}`, {
      AuthMethod: `jwt-${ns}`,
      BindType: "service",
      BindName: "web",
    })) as { ID: string }
  ).ID;
}

/** Endpoints that return records, each read in namespace `ns`. */
function reads(ns: string): Array<[string, string, unknown?]> {
  const q = `?ns=${ns}`;
  return [
    ["GET", `/v1/kv/app/config${q}`],
    ["GET", `/v1/kv/app${q}&recurse`],
    ["GET", `/v1/session/list${q}`],
    ["GET", `/v1/session/info/${ids[`session-${ns}`]}${q}`],
    ["GET", `/v1/session/node/${NODE}${q}`],
    ["GET", `/v1/catalog/service/db${q}`],
    ["GET", `/v1/catalog/node/ext${q}`],
    ["GET", `/v1/health/service/db${q}`],
    ["GET", `/v1/health/checks/db${q}`],
    ["GET", `/v1/health/node/ext${q}`],
    ["GET", `/v1/health/state/any${q}`],
    ["GET", `/v1/config/service-defaults${q}`],
    ["GET", `/v1/config/service-defaults/db${q}`],
    ["GET", `/v1/config/service-intentions/db${q}`],
    ["GET", `/v1/acl/tokens${q}`],
    ["GET", `/v1/acl/token/${ids[`token-${ns}`]}${q}`],
    ["GET", `/v1/acl/policies${q}`],
    ["GET", `/v1/acl/policy/${ids[`policy-${ns}`]}${q}`],
    ["GET", `/v1/acl/roles${q}`],
    ["GET", `/v1/acl/role/${ids[`role-${ns}`]}${q}`],
    ["GET", `/v1/acl/auth-methods${q}`],
    ["GET", `/v1/acl/auth-method/jwt-${ns}${q}`],
    ["GET", `/v1/acl/binding-rules${q}`],
    ["GET", `/v1/acl/binding-rule/${ids[`rule-${ns}`]}${q}`],
    [
      "PUT",
      `/v1/txn${q}`,
      [
        { KV: { Verb: "get", Key: "app/config" } },
        { Service: { Verb: "get", Node: "ext", Service: { ID: `db-${ns}`, Namespace: ns } } },
        { Check: { Verb: "get", Check: { Node: "ext", CheckID: `db-${ns}`, Namespace: ns } } },
      ],
    ],
  ];
}

/** Endpoints with no namespace of their own (or the agent's): read once, in the default namespace. */
const DEFAULT_ONLY: Array<[string, string, unknown?]> = [
  ["GET", "/v1/catalog/nodes"],
  ["GET", `/v1/catalog/node/${NODE}`],
  ["GET", "/v1/catalog/service/web"],
  ["GET", "/v1/health/service/web"],
  ["GET", "/v1/agent/services"],
  ["GET", "/v1/agent/service/web-default"],
  ["GET", "/v1/agent/checks"],
  ["GET", "/v1/agent/health/service/name/web"],
  ["GET", "/v1/agent/health/service/id/web-default"],
  ["GET", "/v1/config/proxy-defaults"],
  ["GET", "/v1/acl/token/self"],
  ["GET", "/v1/query"],
];

beforeAll(async () => {
  const [httpPort, serverPort] = await freePorts(2);
  agent = scratch.spawn({
    name: NODE,
    ports: { http: httpPort!, server: serverPort! },
    flags: [
      "-dev",
      "-node",
      NODE,
      "-hcl",
      `acl { enabled = true\n default_policy = "deny"\n tokens { initial_management = "${ROOT}"\n agent = "${ROOT}" } }`,
    ],
    logFile: scratch.path("oss.log"),
  });
  await awaitHttp(agent);
  await waitFor(
    "the initial management token and the agent's node in the catalog",
    async () => {
      // An unknown node is a 200 too, with a null body.
      const r = await call("GET", `/v1/catalog/node/${NODE}`);
      return r.status === 200 && r.text !== "null" ? true : undefined;
    },
    30_000,
  );
  const publicKey = generateKeyPairSync("rsa", { modulusLength: 2048 })
    .publicKey.export({ type: "spki", format: "pem" })
    .toString();
  await ok("PUT", "/v1/namespace", { Name: "team" });
  await seed("default", publicKey);
  await seed("team", publicKey);
  await ok("PUT", "/v1/config", { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } });
  await ok("POST", "/v1/query", { Name: "db-query", Service: { Service: "db" } });
}, AGENT_START_MS + 60_000);

afterAll(() => scratch.dispose());

describe("records in the default namespace", () => {
  it("carry no Namespace or Partition on any endpoint", async () => {
    for (const [method, path, body] of reads("default")) {
      const answer = await ok(method, path, body);
      expect(answer, `${method} ${path} answered nothing`).not.toEqual([]);
      expect(scopeMembers(answer), `${method} ${path}`).toEqual([]);
    }
    // The agent's own endpoints and unscoped lists show every namespace's records: only the others' name one.
    const queryId = ((await ok("GET", "/v1/query")) as Array<{ ID: string }>)[0]!.ID;
    const unscoped = [
      ...DEFAULT_ONLY,
      ["GET", `/v1/query/${queryId}`],
      ["GET", `/v1/query/${queryId}/execute`],
      ["GET", `/v1/query/${queryId}/explain`],
    ] as Array<[string, string, unknown?]>;
    for (const [method, path, body] of unscoped) {
      const answer = await ok(method, path, body);
      expect(answer, `${method} ${path} answered nothing`).not.toEqual([]);
      for (const member of scopeMembers(answer))
        expect(member, `${method} ${path}`).toMatch(/\.Namespace="team"$/);
    }
  });

  it("keep a user's free-form meta keys as written", async () => {
    const [entry] = (await ok("GET", "/v1/catalog/service/db")) as Array<{
      NodeMeta: Record<string, string>;
      ServiceMeta: Record<string, string>;
    }>;
    expect(entry!.NodeMeta).toEqual({ Namespace: "default" });
    expect(entry!.ServiceMeta).toEqual({ Namespace: "default" });
  });

  it("leave the discovery chain's data fields alone (Consul writes its targets' namespaces)", async () => {
    const chain = (await ok("GET", "/v1/discovery-chain/db")) as { Chain: { Namespace: string } };
    expect(chain.Chain.Namespace).toBe("default");
  });
});

describe("records in another namespace", () => {
  it("name their namespace on every endpoint", async () => {
    for (const [method, path, body] of reads("team")) {
      const answer = await ok(method, path, body);
      const members = scopeMembers(answer);
      expect(members.length, `${method} ${path}: ${JSON.stringify(answer)}`).toBeGreaterThan(0);
      // The agent's node check (serfHealth) lives in the default namespace, and so has none.
      for (const member of members) expect(member, `${method} ${path}`).toMatch(/\.Namespace="team"$/);
    }
  });
});

describe("the agent's node", () => {
  it("carries consul-network-segment in its Meta, as Consul's agent registers it", async () => {
    const node = (await ok("GET", `/v1/catalog/node/${NODE}`)) as { Node: { Meta: Record<string, string> } };
    expect(node.Node.Meta).toEqual({ "consul-network-segment": "" });
    const self = (await ok("GET", "/v1/agent/self")) as { Meta: Record<string, string> };
    expect(self.Meta).toEqual({ "consul-network-segment": "" });
  });
});
