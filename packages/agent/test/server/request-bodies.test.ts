// Request bodies Consul accepts, against one real -dev agent with ACLs on: a JSON null body reads as an empty
// one, the nulls Go clients send for unset maps, slices and pointers read as fields not sent, and the bodies
// the Python clients (python-consul2 and python-consul) send today decode, each exactly as those libraries
// build it.
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

const ROOT = "6e2d3f4a-aaaa-bbbb-cccc-444455556666";
const NODE = "bodies";
const scratch = new AgentScratch();
let agent: AgentProcess;

async function call(method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const r = await http(`${agent.url}${path}`, method, body, {
    headers: { "X-Consul-Token": ROOT },
    timeoutMs: 10_000,
  });
  return { status: r.status, text: r.text };
}

/** A body sent as the given JSON text (the exact bytes a client writes). */
async function ok<T = unknown>(method: string, path: string, body?: string): Promise<T> {
  const r = await call(method, path, body);
  expect(r.status, `${method} ${path} ${body ?? ""}: ${r.text}`).toBe(200);
  return (r.text === "" ? null : JSON.parse(r.text)) as T;
}

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
      `enable_script_checks = true\nacl { enabled = true\n default_policy = "deny"\n tokens { initial_management = "${ROOT}"\n agent = "${ROOT}" } }`,
    ],
    logFile: scratch.path("bodies.log"),
  });
  await awaitHttp(agent);
  await waitFor(
    "the agent's node in the catalog",
    async () => {
      // An unknown node is a 200 too, with a null body.
      const r = await call("GET", `/v1/catalog/node/${NODE}`);
      return r.status === 200 && r.text !== "null" ? true : undefined;
    },
    30_000,
  );
  await ok("PUT", "/v1/agent/service/register", JSON.stringify({ Name: "web", Check: { TTL: "30s" } }));
}, AGENT_START_MS + 60_000);

afterAll(() => scratch.dispose());

describe("a JSON null body", () => {
  // Every endpoint that decodes a JSON body; null must answer as the empty object (or list) does.
  const endpoints: Array<[string, string, string]> = [
    ["PUT", "/v1/catalog/register", "{}"],
    ["PUT", "/v1/catalog/deregister", "{}"],
    ["PUT", "/v1/agent/service/register", "{}"],
    ["PUT", "/v1/agent/check/register", "{}"],
    ["PUT", "/v1/agent/check/update/service:web", "{}"],
    ["PUT", "/v1/agent/token/default", "{}"],
    ["PUT", "/v1/session/create", "{}"],
    ["PUT", "/v1/txn", "[]"],
    ["PUT", "/v1/config", "{}"],
    ["POST", "/v1/query", "{}"],
    ["PUT", "/v1/coordinate/update", "{}"],
    ["PUT", "/v1/acl/token", "{}"],
    ["PUT", "/v1/acl/policy", "{}"],
    ["PUT", "/v1/acl/role", "{}"],
    ["PUT", "/v1/acl/auth-method", "{}"],
    ["PUT", "/v1/acl/binding-rule", "{}"],
    ["POST", "/v1/acl/login", "{}"],
    ["PUT", "/v1/namespace", "{}"],
    ["POST", "/v1/discovery-chain/web", "{}"],
    ["PUT", "/v1/operator/autopilot/configuration", "{}"],
  ];

  it.each(endpoints)("%s %s answers as an empty body does", async (method, path, empty) => {
    const asNull = await call(method, path, "null");
    const asEmpty = await call(method, path, empty);
    expect(asNull.status, `null: ${asNull.text}`).toBe(asEmpty.status);
    // Writes that succeed answer with new IDs; refusals must give the same reason.
    if (asEmpty.status !== 200) expect(asNull.text).toBe(asEmpty.text);
    expect(asNull.text).not.toMatch(/received null|expected object|must be a JSON/);
  });
});

describe("nulls Go clients send for unset fields", () => {
  it("agent service registration (api.AgentServiceRegistration: Check and Checks have no omitempty)", async () => {
    await ok(
      "PUT",
      "/v1/agent/service/register",
      '{"ID":"go1","Name":"go","Tags":null,"Port":8080,"Meta":null,"Weights":null,"Check":null,"Checks":null,"TaggedAddresses":null,"Proxy":null,"Connect":null}',
    );
    const svc = await ok<{ Tags: string[]; Meta: object; Weights: object; Port: number }>(
      "GET",
      "/v1/agent/service/go1",
    );
    expect(svc).toMatchObject({ Tags: [], Meta: {}, Weights: { Passing: 1, Warning: 1 }, Port: 8080 });
  });

  it("catalog registration (api.CatalogRegistration with a nil Service, Check, maps)", async () => {
    expect(
      await ok(
        "PUT",
        "/v1/catalog/register",
        '{"ID":"","Node":"gonode","Address":"10.0.0.7","TaggedAddresses":null,"NodeMeta":null,"Datacenter":"","Service":null,"Check":null,"Checks":null,"SkipNodeUpdate":false}',
      ),
    ).toBe(true);
    const node = await ok<{ Node: { Meta: object; TaggedAddresses: object } }>(
      "GET",
      "/v1/catalog/node/gonode",
    );
    expect(node.Node).toMatchObject({ Meta: {}, TaggedAddresses: {} });
  });

  it("transaction operations (api.TxnOp: the three unused members are null)", async () => {
    const r = await ok<{ Results: Array<{ KV: { Key: string } }>; Errors: null }>(
      "PUT",
      "/v1/txn",
      '[{"KV":{"Verb":"set","Key":"go/k","Value":"dg==","Flags":0,"Index":0,"Session":""},"Node":null,"Service":null,"Check":null},' +
        '{"KV":{"Verb":"set","Key":"go/empty","Value":null,"Flags":0,"Index":0,"Session":""},"Node":null,"Service":null,"Check":null},' +
        '{"KV":null,"Node":{"Verb":"set","Node":{"ID":"","Node":"txnnode","Address":"10.0.0.8","Datacenter":"","TaggedAddresses":null,"Meta":null,"CreateIndex":0,"ModifyIndex":0}},"Service":null,"Check":null}]',
    );
    expect(r.Errors).toBeNull();
    expect((await call("GET", "/v1/kv/go/k?raw")).text).toBe("v");
    // A null Value is the empty value, as Go's nil []byte.
    expect((await call("GET", "/v1/kv/go/empty?raw")).status).toBe(200);
    expect((await call("GET", "/v1/catalog/node/txnnode")).status).toBe(200);
  });

  it("autopilot configuration (api.AutopilotConfiguration: nil *ReadableDuration)", async () => {
    expect(
      await ok(
        "PUT",
        "/v1/operator/autopilot/configuration",
        '{"CleanupDeadServers":true,"LastContactThreshold":null,"MaxTrailingLogs":250,"MinQuorum":0,"ServerStabilizationTime":null,"RedundancyZoneTag":"","DisableUpgradeMigration":false,"UpgradeVersionTag":"","CreateIndex":0,"ModifyIndex":0}',
      ),
    ).toBe(true);
    const conf = await ok<{ CleanupDeadServers: boolean; MaxTrailingLogs: number }>(
      "GET",
      "/v1/operator/autopilot/configuration",
    );
    expect(conf).toMatchObject({ CleanupDeadServers: true, MaxTrailingLogs: 250 });
    await ok(
      "PUT",
      "/v1/operator/autopilot/configuration",
      '{"CleanupDeadServers":true,"LastContactThreshold":"200ms","MaxTrailingLogs":250,"ServerStabilizationTime":"10s"}',
    );
  });

  it("prepared query (api.PreparedQueryDefinition: nil slices and maps)", async () => {
    const { ID } = await ok<{ ID: string }>(
      "POST",
      "/v1/query",
      '{"ID":"","Name":"goquery","Session":"","Token":"","Service":{"Service":"web","Near":"","Failover":{"NearestN":0,"Datacenters":null,"Targets":null},"IgnoreCheckIDs":null,"OnlyPassing":false,"Tags":null,"NodeMeta":null,"ServiceMeta":null,"Connect":false},"DNS":{"TTL":""},"Template":{"Type":"","Regexp":"","RemoveEmptyTags":false}}',
    );
    const [q] = await ok<Array<{ Name: string; Service: { Service: string } }>>("GET", `/v1/query/${ID}`);
    expect(q).toMatchObject({ Name: "goquery", Service: { Service: "web" } });
  });

  it("session, config entry and ACL token with null optional fields", async () => {
    const { ID } = await ok<{ ID: string }>(
      "PUT",
      "/v1/session/create",
      '{"Name":"gosess","Node":null,"Checks":null,"NodeChecks":null,"ServiceChecks":null,"LockDelay":null,"Behavior":null,"TTL":null}',
    );
    const [s] = await ok<Array<{ Node: string; LockDelay: number; Behavior: string }>>(
      "GET",
      `/v1/session/info/${ID}`,
    );
    expect(s).toMatchObject({ Node: NODE, LockDelay: 15_000_000_000, Behavior: "release" });
    expect(
      await ok("PUT", "/v1/config", '{"Kind":"service-defaults","Name":"go","Protocol":"http","Meta":null}'),
    ).toBe(true);
    const token = await ok<{ AccessorID: string }>(
      "PUT",
      "/v1/acl/token",
      '{"Description":"go","Policies":null,"Roles":null,"ServiceIdentities":null,"NodeIdentities":null,"ExpirationTime":null,"Local":false}',
    );
    expect(token.AccessorID).toMatch(/^[0-9a-f-]{36}$/);
  });
});

interface AgentCheck {
  Name: string;
  Notes: string;
  ServiceID: string;
  Type: string;
  Definition: Record<string, unknown>;
}

describe("bodies python-consul2 sends (consul/base.py)", () => {
  it("agent.service.register with each Check helper's dict", async () => {
    // Service.register: lower-case keys, the check dict under 'check'.
    const base = { enabletagoverride: true, address: "10.0.0.1", port: 8080, tags: ["a"], meta: { k: "v" } };
    const checks: Record<string, object> = {
      script: { args: ["sh", "-c", "/bin/true"], interval: "10s" },
      http: {
        http: "http://127.0.0.1:1/health",
        interval: "10s",
        timeout: "1s",
        DeregisterCriticalServiceAfter: "10m",
        header: { "x-foo": ["bar", "baz"] },
        TLSSkipVerify: true,
      },
      tcp: { tcp: "127.0.0.1:1", interval: "10s", timeout: "1s", DeregisterCriticalServiceAfter: "10m" },
      ttl: { ttl: "10s" },
    };
    for (const [kind, check] of Object.entries(checks)) {
      const id = `py2-${kind}`;
      await ok("PUT", "/v1/agent/service/register", JSON.stringify({ name: id, ...base, id, check }));
    }
    const services = await ok<Record<string, { Tags: string[]; Meta: object; EnableTagOverride: boolean }>>(
      "GET",
      "/v1/agent/services",
    );
    expect(services["py2-ttl"]).toMatchObject({ Tags: ["a"], Meta: { k: "v" }, EnableTagOverride: true });
    const registered = await ok<Record<string, AgentCheck>>("GET", "/v1/agent/checks");
    expect(registered["service:py2-script"]!.Type).toBe("script");
    expect(registered["service:py2-http"]).toMatchObject({
      Type: "http",
      Definition: {
        HTTP: "http://127.0.0.1:1/health",
        Header: { "x-foo": ["bar", "baz"] },
        TLSSkipVerify: true,
        Interval: "10s",
        Timeout: "1s",
        DeregisterCriticalServiceAfter: "10m0s",
      },
    });
    expect(registered["service:py2-tcp"]).toMatchObject({ Type: "tcp", Definition: { TCP: "127.0.0.1:1" } });
    expect(registered["service:py2-ttl"]!.Type).toBe("ttl");
  });

  it("agent.check.register: the check dict merged in, durations as numbers from the deprecated arguments", async () => {
    // check.register('check1', Check.ttl('1s'), notes='foo')
    await ok("PUT", "/v1/agent/check/register", '{"name": "check1", "ttl": "1s", "notes": "foo"}');
    // check.register('check3', ttl=1, notes='foo3'): _compat gives {'ttl': 1}, nanoseconds to Go.
    await ok("PUT", "/v1/agent/check/register", '{"name": "check3", "ttl": 1, "notes": "foo3"}');
    await ok(
      "PUT",
      "/v1/agent/check/register",
      '{"name": "check5", "http": "http://localhost:8500", "interval": 1, "timeout": 1, "notes": "foo5"}',
    );
    // check.register('check name', Check.script('/bin/true', 10), check_id='check_id')
    await ok(
      "PUT",
      "/v1/agent/check/register",
      '{"name": "check name", "args": ["sh", "-c", "/bin/true"], "interval": 10, "id": "check_id"}',
    );
    await ok(
      "PUT",
      "/v1/agent/check/register",
      '{"name": "foo", "ttl": "100ms", "serviceid": "py2-ttl", "id": "py2-svc-check"}',
    );
    const registered = await ok<Record<string, AgentCheck>>("GET", "/v1/agent/checks");
    expect(registered.check1).toMatchObject({ Name: "check1", Notes: "foo", Type: "ttl" });
    expect(registered.check3).toMatchObject({ Notes: "foo3", Type: "ttl" });
    expect(registered.check5).toMatchObject({ Notes: "foo5", Type: "http" });
    expect(registered.check_id).toMatchObject({ Name: "check name", Type: "script" });
    expect(registered["py2-svc-check"]).toMatchObject({ ServiceID: "py2-ttl", Type: "ttl" });
  });

  it("catalog.register and catalog.deregister", async () => {
    expect(
      await ok(
        "PUT",
        "/v1/catalog/register",
        JSON.stringify({
          node: "pynode",
          address: "10.1.1.1",
          datacenter: "dc1",
          service: { Service: "redis", ID: "redis1", Tags: ["master", "v1"], Port: 8000 },
          check: {
            Node: "pynode",
            CheckID: "service:redis1",
            Name: "Redis health check",
            Notes: "Script based health check",
            Status: "passing",
            ServiceID: "redis1",
          },
          NodeMeta: { rack: "r1" },
        }),
      ),
    ).toBe(true);
    const [entry] = await ok<Array<{ ServiceID: string; ServiceTags: string[]; NodeMeta: object }>>(
      "GET",
      "/v1/catalog/service/redis",
    );
    expect(entry).toMatchObject({
      ServiceID: "redis1",
      ServiceTags: ["master", "v1"],
      NodeMeta: { rack: "r1" },
    });
    // skipnodeupdate leaves the node's meta as it was.
    await ok(
      "PUT",
      "/v1/catalog/register",
      '{"node": "pynode", "address": "10.1.1.1", "skipnodeupdate": true, "NodeMeta": {"rack": "r2"}}',
    );
    const node = await ok<{ Node: { Meta: object } }>("GET", "/v1/catalog/node/pynode");
    expect(node.Node.Meta).toEqual({ rack: "r1" });
    expect(
      await ok(
        "PUT",
        "/v1/catalog/deregister",
        '{"node": "pynode", "datacenter": "dc1", "checkid": "service:redis1"}',
      ),
    ).toBe(true);
    expect(await ok("PUT", "/v1/catalog/deregister", '{"node": "pynode", "serviceid": "redis1"}')).toBe(true);
    expect(await ok("GET", "/v1/catalog/service/redis")).toEqual([]);
  });

  it("session.create, with no body at all and with every option", async () => {
    const bare = await ok<{ ID: string }>("PUT", "/v1/session/create", "");
    expect(bare.ID).toMatch(/^[0-9a-f-]{36}$/);
    const { ID } = await ok<{ ID: string }>(
      "PUT",
      "/v1/session/create",
      JSON.stringify({
        name: "py",
        node: NODE,
        checks: ["serfHealth"],
        lockdelay: "20s",
        behavior: "delete",
        ttl: "20s",
      }),
    );
    const [s] = await ok<Array<Record<string, unknown>>>("GET", `/v1/session/info/${ID}`);
    expect(s).toMatchObject({
      Name: "py",
      Node: NODE,
      Checks: ["serfHealth"],
      LockDelay: 20_000_000_000,
      Behavior: "delete",
      TTL: "20s",
    });
  });

  it("query.create and query.update (_query_data: a name_prefix_match template, lower-case keys)", async () => {
    const body = {
      name: "pyq",
      dns: { ttl: "10s" },
      template: { type: "name_prefix_match" },
      service: {
        Service: "web",
        onlypassing: true,
        tags: ["a"],
        near: "_agent",
        nodemeta: { rack: "r1" },
        servicemeta: { env: "prod" },
        failover: { nearestn: 2, datacenters: ["dc2"] },
      },
    };
    const { ID } = await ok<{ ID: string }>("POST", "/v1/query", JSON.stringify(body));
    const [q] = await ok<Array<Record<string, unknown>>>("GET", `/v1/query/${ID}`);
    expect(q).toMatchObject({
      Name: "pyq",
      DNS: { TTL: "10s" },
      Template: { Type: "name_prefix_match" },
      Service: {
        Service: "web",
        OnlyPassing: true,
        Tags: ["a"],
        Near: "_agent",
        NodeMeta: { rack: "r1" },
        ServiceMeta: { env: "prod" },
        Failover: { NearestN: 2, Datacenters: ["dc2"] },
      },
    });
    await ok(
      "PUT",
      `/v1/query/${ID}`,
      JSON.stringify({
        name: "pyq",
        template: { type: "name_prefix_match", regexp: "^pyq-(.*)$" },
        service: { service: "web", failover: {} },
      }),
    );
  });

  it("txn.put, config.put, event.fire and kv.put", async () => {
    const r = await ok<{ Errors: null }>(
      "PUT",
      "/v1/txn",
      '[{"KV": {"Verb": "set", "Key": "asdf", "Value": "MQ=="}}]',
    );
    expect(r.Errors).toBeNull();
    const got = await ok<{ Results: Array<{ KV: { Value: string } }> }>(
      "PUT",
      "/v1/txn",
      '[{"KV": {"Verb": "get", "Key": "asdf"}}]',
    );
    expect(got.Results[0]!.KV.Value).toBe("MQ==");
    expect(
      await ok("PUT", "/v1/config", '{"Kind": "service-defaults", "Name": "py", "Protocol": "http"}'),
    ).toBe(true);
    expect(await ok("PUT", "/v1/event/fire/fooname", "foobody")).toMatchObject({ Name: "fooname" });
    expect(await ok("PUT", "/v1/kv/pydir/", undefined)).toBe(true);
  });

  it("the ACL helpers, with the payloads of its own test suite (tests/test_std_acl.py)", async () => {
    const rules = 'node_prefix "" { policy = "read"}';
    const policy = await ok<{ ID: string; Name: string }>(
      "PUT",
      "/v1/acl/policy",
      JSON.stringify({
        Name: "node-read",
        Description: "Grants read access to all node information",
        Rules: rules,
        Datacenters: ["dc1"],
      }),
    );
    const renamed = await ok<{ Name: string }>(
      "PUT",
      `/v1/acl/policy/${policy.ID}`,
      JSON.stringify({ Name: "node-read1", Description: "d", Rules: rules, Datacenters: ["dc1"] }),
    );
    expect(renamed.Name).toBe("node-read1");
    // The same policy linked twice, by ID and by name.
    const payload = {
      Description: "Agent token for 'node1'",
      Policies: [{ ID: policy.ID }, { Name: "node-read1" }],
      Local: false,
    };
    const token = await ok<{ AccessorID: string; Policies: unknown[] }>(
      "PUT",
      "/v1/acl/token",
      JSON.stringify(payload),
    );
    expect(token.Policies).toHaveLength(1);
    await ok("PUT", `/v1/acl/token/${token.AccessorID}`, JSON.stringify(payload));
    const clone = await ok<{ AccessorID: string }>(
      "PUT",
      `/v1/acl/token/${token.AccessorID}/clone`,
      JSON.stringify({ Description: "i am clone" }),
    );
    expect(clone.AccessorID).not.toBe(token.AccessorID);
    const rolePayload = {
      Name: "example-role",
      Description: "Showcases all input parameters",
      Policies: [{ ID: policy.ID }, { Name: "node-read1" }],
      ServiceIdentities: [{ ServiceName: "web" }, { ServiceName: "db", Datacenters: ["dc1"] }],
    };
    const role = await ok<{ ID: string; ServiceIdentities: unknown[] }>(
      "PUT",
      "/v1/acl/role",
      JSON.stringify(rolePayload),
    );
    expect(role.ServiceIdentities).toHaveLength(2);
    const updated = await ok<{ Name: string }>(
      "PUT",
      `/v1/acl/role/${role.ID}`,
      JSON.stringify({ ...rolePayload, Name: "example-role1" }),
    );
    expect(updated.Name).toBe("example-role1");
  });
});

describe("bodies python-consul sends (its older helpers)", () => {
  it("the legacy ACL create, update and clone (token in the query string)", async () => {
    const created = await ok<{ ID: string }>(
      "PUT",
      `/v1/acl/create?token=${ROOT}`,
      JSON.stringify({ Name: "legacy", Type: "client", Rules: 'key "" { policy = "read" }' }),
    );
    expect(created.ID).toMatch(/^[0-9a-f-]{36}$/);
    const updated = await ok<{ ID: string }>(
      "PUT",
      `/v1/acl/update?token=${ROOT}`,
      JSON.stringify({ ID: created.ID, Name: "legacy2", Type: "client" }),
    );
    expect(updated.ID).toBe(created.ID);
    const [info] = await ok<Array<{ Name: string }>>("GET", `/v1/acl/info/${created.ID}?token=${ROOT}`);
    expect(info!.Name).toBe("legacy2");
    // create with no payload at all: data='' when no argument is given.
    expect((await ok<{ ID: string }>("PUT", `/v1/acl/create?token=${ROOT}`, "")).ID).toMatch(
      /^[0-9a-f-]{36}$/,
    );
  });

  it("catalog.register and deregister carry a WriteRequest member, which Consul ignores", async () => {
    expect(
      await ok(
        "PUT",
        `/v1/catalog/register?token=${ROOT}`,
        JSON.stringify({ node: "pyold", address: "10.2.2.2", WriteRequest: { Token: ROOT } }),
      ),
    ).toBe(true);
    expect(
      await ok(
        "PUT",
        "/v1/catalog/deregister",
        JSON.stringify({ node: "pyold", WriteRequest: { Token: ROOT } }),
      ),
    ).toBe(true);
  });

  it("Check.http with the deregister option in the service's check", async () => {
    await ok(
      "PUT",
      "/v1/agent/service/register",
      JSON.stringify({
        name: "pyold-http",
        port: 80,
        check: {
          http: "http://127.0.0.1:1/",
          interval: "10s",
          timeout: "1s",
          DeregisterCriticalServiceAfter: "1m",
        },
      }),
    );
    const checks = await ok<Record<string, AgentCheck>>("GET", "/v1/agent/checks");
    expect(checks["service:pyold-http"]).toMatchObject({ Type: "http" });
  });

  it("Check.script's pre-1.1 'script' field is refused with Consul's reason, as Consul 1.1+ does", async () => {
    const r = await call(
      "PUT",
      "/v1/agent/service/register",
      JSON.stringify({ name: "pyold-script", check: { script: "/bin/true", interval: "10s" } }),
    );
    expect(r.status).toBe(400);
    // With no kind left, the definition reads as a TTL check without a TTL: Consul's CheckType.Validate words.
    expect(r.text).toBe("Invalid check: TTL must be > 0 for TTL checks");
  });
});
