// A server's answers to client agents with ACLs on, over a real state store: each anti-entropy write runs
// the catalog endpoint's own code with the token it carries, so it is refused exactly as the same request
// over HTTP is; reads take node:read; token resolution hands out a token's records.
import { recordedLookups, resolveSecret } from "@cairn/acl";
import { AclEnforcer, createApi, GLOBAL_MANAGEMENT_POLICY, LocalBackend, managementToken } from "@cairn/api";
import { ANONYMOUS_TOKEN_ACCESSOR, ANONYMOUS_TOKEN_SECRET, COMMAND_VERSION } from "@cairn/fsm";
import { beforeAll, describe, expect, it } from "vitest";
import { aclCalls, catalogCalls, type TunnelCalls } from "../../src/tunnel/index.js";

const ROOT = "00000000-0000-4000-8000-0000000000aa";
const UNKNOWN = "00000000-0000-4000-8000-0000000000ff";
const backend = new LocalBackend();
const acl = new AclEnforcer({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny" });
const api = createApi({ backend, acl, nodeName: "srv", datacenter: "dc1" });
let calls: TunnelCalls;
const secrets: Record<string, string> = {};

async function httpPut(path: string, body: unknown, token: string): Promise<Response> {
  return api.fetch(
    new Request(`http://srv${path}`, {
      method: "PUT",
      body: JSON.stringify(body),
      headers: token ? { "x-consul-token": token } : {},
    }),
  );
}

async function put(path: string, body: unknown): Promise<{ ID: string; SecretID: string }> {
  const r = await httpPut(path, body, ROOT);
  expect(r.status).toBe(200);
  return (await r.json()) as { ID: string; SecretID: string };
}

async function tokenWith(name: string, rules: string): Promise<void> {
  await put("/v1/acl/policy", { Name: name, Rules: rules });
  secrets[name] = (await put("/v1/acl/token", { Policies: [{ Name: name }] })).SecretID;
}

beforeAll(async () => {
  await backend.apply({
    v: COMMAND_VERSION,
    type: "acl.init",
    policy: GLOBAL_MANAGEMENT_POLICY,
    anonymous: {
      ...managementToken(ANONYMOUS_TOKEN_ACCESSOR, ANONYMOUS_TOKEN_SECRET, "Anonymous"),
      Policies: [],
    },
    initialManagement: managementToken("00000000-0000-0000-0000-00000000000a", ROOT, "Initial Management"),
    now: Date.now(),
  });
  await tokenWith("agent", `node "c1" { policy = "write" }\nservice_prefix "" { policy = "write" }`);
  await tokenWith("node-only", `node "c1" { policy = "write" }`);
  await tokenWith("reader", `node "c1" { policy = "read" }`);
  await tokenWith("web", `service "web" { policy = "write" }`);
  calls = {
    ...catalogCalls({ backend, datacenter: "dc1", now: Date.now, acl }),
    ...aclCalls({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny", now: Date.now }),
  };
});

type Rpc = "Catalog.Register" | "Catalog.Deregister";
const write = (rpc: Rpc, body: unknown, token: string) =>
  calls["agent.catalog.write"]!(rpc, JSON.stringify(body), token);
const read = (token: string) => calls["agent.catalog.read"]!("c1", token);
const registration = (service?: string, node: Record<string, unknown> = {}) => ({
  Node: "c1",
  Address: "10.0.0.1",
  Datacenter: "dc1",
  ...node,
  ...(service ? { Service: { ID: service, Service: service, Port: 80 } } : {}),
  Check: {
    CheckID: service ? `service:${service}` : "node-check",
    ServiceID: service,
    Status: "passing",
  },
});
const deregistration = (serviceID: string) => ({ Node: "c1", ServiceID: serviceID, Namespace: "default" });
const register = (body: unknown, token: string) => write("Catalog.Register", body, token);
const deregister = (body: unknown, token: string) => write("Catalog.Deregister", body, token);
const services = () => (backend.store.view().node("c1").value?.services ?? []).map((s) => s.Service);

/**
 * One path: the client agent's write is refused, changing nothing, with the very message the HTTP endpoint
 * answers the same request and token with (its 403 or 400 body).
 */
async function refusedAsOverHttp(rpc: Rpc, body: unknown, token: string, status: number, text: RegExp) {
  const before = backend.store.index;
  const path = rpc === "Catalog.Register" ? "/v1/catalog/register" : "/v1/catalog/deregister";
  const overHttp = await httpPut(path, body, token);
  expect(overHttp.status).toBe(status);
  const message = await overHttp.text();
  expect(message).toMatch(text);
  const refusal = await write(rpc, body, token).then(
    () => undefined,
    (err: Error) => err.message,
  );
  expect(refusal).toBe(message);
  expect(backend.store.index).toBe(before);
}

describe("client agents' catalog calls with ACLs on", () => {
  it("read a node with node:read, refuse anonymous and unknown tokens", async () => {
    await expect(read(secrets.reader!)).resolves.toMatchObject({ nodes: 0 });
    await expect(read("")).rejects.toThrow(/Permission denied: the token lacks node:read on "c1"/);
    await expect(read("00000000-0000-4000-8000-0000000000ff")).rejects.toThrow(/ACL not found/);
  });

  it("refuse a registration whose token lacks service:write as the HTTP endpoint does, word for word", async () => {
    await register(registration(), secrets["node-only"]!);
    await refusedAsOverHttp(
      "Catalog.Register",
      registration("web"),
      secrets["node-only"]!,
      403,
      /^Permission denied$/,
    );
    await refusedAsOverHttp("Catalog.Register", registration("web"), "", 403, /^Permission denied$/);
    await refusedAsOverHttp("Catalog.Register", registration("web"), UNKNOWN, 403, /^ACL not found$/);
    // Validation is the endpoint's too.
    await refusedAsOverHttp(
      "Catalog.Register",
      { Node: "c1" },
      secrets.agent!,
      400,
      /^Must provide address$/,
    );
    expect(services()).toEqual([]);
  });

  it("write the node with node:write and a service with service:write on it, no node:write needed", async () => {
    const bare = { Node: "c2", Address: "10.0.0.9", Datacenter: "dc1" };
    // The node does not exist yet: creating it takes node:write, whatever the service token may do.
    await refusedAsOverHttp("Catalog.Register", bare, secrets.web!, 403, /^Permission denied$/);
    await refusedAsOverHttp("Catalog.Register", registration(), secrets.reader!, 403, /^Permission denied$/);
    await expect(register(registration(), secrets["node-only"]!)).resolves.toBe(true);
    expect(services()).toEqual([]);
    // The node re-posted unchanged (or skipped) needs nothing but service:write; changed, node:write.
    await register(registration("web"), secrets.web!);
    expect(services()).toEqual(["web"]);
    await refusedAsOverHttp(
      "Catalog.Register",
      registration("web", { Address: "10.0.0.2" }),
      secrets.web!,
      403,
      /^Permission denied$/,
    );
    await register(registration("web", { Address: "10.0.0.2", SkipNodeUpdate: true }), secrets.web!);
    expect(backend.store.view().node("c1").value?.node.Address).toBe("10.0.0.1");
  });

  it("deregister with node:write on the node, or else service:write on what goes", async () => {
    await register(registration("web"), secrets.web!);
    await refusedAsOverHttp(
      "Catalog.Deregister",
      deregistration("web"),
      secrets.reader!,
      403,
      /^Permission denied$/,
    );
    await refusedAsOverHttp(
      "Catalog.Deregister",
      deregistration("gone"),
      secrets.reader!,
      400,
      /^Unknown service ID 'gone'$/,
    );
    // A check goes with service:write on its service.
    await refusedAsOverHttp(
      "Catalog.Deregister",
      { Node: "c1", CheckID: "service:web" },
      secrets.reader!,
      403,
      /^Permission denied$/,
    );
    await deregister({ Node: "c1", CheckID: "service:web" }, secrets.web!);
    expect(
      backend.store
        .view()
        .checksForNode("c1")
        .value.map((c) => c.CheckID),
    ).not.toContain("service:web");
    await deregister(deregistration("web"), secrets.web!);
    expect(services()).toEqual([]);
    await register(registration("web"), secrets.web!);
    // The agent token's node:write removes a service whose own token may be long gone.
    await deregister(deregistration("web"), secrets["node-only"]!);
    expect(services()).toEqual([]);
    // The node itself only with node:write.
    await refusedAsOverHttp("Catalog.Deregister", { Node: "c1" }, secrets.web!, 403, /^Permission denied$/);
  });

  it("refuse anything but catalog writes, and the retired raw-command call", async () => {
    const before = backend.store.index;
    await expect(
      calls["agent.catalog.write"]!("KVS.Apply", JSON.stringify({ Key: "k", Value: "" }), ROOT),
    ).rejects.toThrow(/client agents may only write to the catalog, not KVS.Apply/);
    await expect(calls["agent.catalog.write"]!("Catalog.Register", { Node: "c1" }, ROOT)).rejects.toThrow(
      /Catalog.Register needs a JSON body/,
    );
    await expect(calls["agent.catalog.apply"]!(new Uint8Array([1, 2, 3]), ROOT)).rejects.toThrow(
      /agent.catalog.apply is retired/,
    );
    expect(backend.store.index).toBe(before);
  });

  it("hand out a token's records, from which it resolves to the server's decisions; null when unknown", async () => {
    const records = await calls["acl.resolve"]!(secrets["node-only"]);
    const copy = resolveSecret(secrets["node-only"]!, recordedLookups(structuredClone(records) as never), {
      now: Date.now(),
      datacenter: "dc1",
      defaultPolicy: "deny",
    }).authorizer;
    expect(copy.authorize("default", "node", "c1", "write")).toBe("allow");
    expect(copy.authorize("default", "service", "web", "write")).toBe("deny");
    await expect(calls["acl.resolve"]!(UNKNOWN)).resolves.toBeNull();
    await expect(calls["acl.resolve"]!(42)).rejects.toThrow(/needs a secret/);
  });
});
