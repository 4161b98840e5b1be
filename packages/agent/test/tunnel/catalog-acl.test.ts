// A server's answers to client agents with ACLs on, over a real state store: each anti-entropy call is
// authorized with the token it carries, as Consul's catalog endpoint vets it, and token resolution hands
// out a token's records.
import { recordedLookups, resolveSecret } from "@cairn/acl";
import { AclEnforcer, createApi, GLOBAL_MANAGEMENT_POLICY, LocalBackend, managementToken } from "@cairn/api";
import {
  ANONYMOUS_TOKEN_ACCESSOR,
  ANONYMOUS_TOKEN_SECRET,
  COMMAND_VERSION,
  type Command,
  encodeCommand,
} from "@cairn/fsm";
import { beforeAll, describe, expect, it } from "vitest";
import { storeCatalog } from "../../src/local/catalog.js";
import { aclCalls, catalogCalls, type TunnelCalls } from "../../src/tunnel/index.js";

const ROOT = "00000000-0000-4000-8000-0000000000aa";
const backend = new LocalBackend();
const acl = new AclEnforcer({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny" });
const api = createApi({ backend, acl, nodeName: "srv", datacenter: "dc1" });
let calls: TunnelCalls;
const secrets: Record<string, string> = {};

async function put(path: string, body: unknown): Promise<{ ID: string; SecretID: string }> {
  const r = await api.fetch(
    new Request(`http://srv${path}`, {
      method: "PUT",
      body: JSON.stringify(body),
      headers: { "x-consul-token": ROOT },
    }),
  );
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
    ...catalogCalls(storeCatalog(backend), acl),
    ...aclCalls({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny", now: Date.now }),
  };
});

const apply = (command: Command, token: string) =>
  calls["agent.catalog.apply"]!(encodeCommand(command), token);
const read = (token: string) => calls["agent.catalog.read"]!("c1", token);
const registration = (service?: string, node: Record<string, unknown> = {}) =>
  ({
    v: COMMAND_VERSION,
    type: "catalog.register",
    registration: {
      Node: "c1",
      Address: "10.0.0.1",
      ...node,
      ...(service ? { Service: { ID: service, Service: service, Port: 80 } } : {}),
      Check: {
        CheckID: service ? `service:${service}` : "node-check",
        ServiceID: service,
        Status: "passing",
      },
    },
    now: Date.now(),
  }) as Command;
const deregistration = (serviceID: string) =>
  ({ v: COMMAND_VERSION, type: "catalog.deregister", node: "c1", serviceID, now: Date.now() }) as Command;

describe("client agents' catalog calls with ACLs on", () => {
  it("read a node with node:read, refuse anonymous and unknown tokens", async () => {
    await expect(read(secrets.reader!)).resolves.toMatchObject({ nodes: 0 });
    await expect(read("")).rejects.toThrow(/Permission denied: the token lacks node:read on "c1"/);
    await expect(read("00000000-0000-4000-8000-0000000000ff")).rejects.toThrow(/ACL not found/);
  });

  it("write the node with node:write and a service with service:write on it, no node:write needed", async () => {
    const services = () => (backend.store.view().node("c1").value?.services ?? []).map((s) => s.Service);
    await expect(apply(registration(), secrets.reader!)).rejects.toThrow(/lacks node:write on "c1"/);
    // The node does not exist yet: creating it takes node:write, whatever the service token may do.
    await expect(apply(registration("web"), secrets.web!)).rejects.toThrow(/lacks node:write on "c1"/);
    await expect(apply(registration(), secrets["node-only"]!)).resolves.toBeDefined();
    await expect(apply(registration("web"), secrets["node-only"]!)).rejects.toThrow(
      /lacks service:write on "web"/,
    );
    expect(services()).toEqual([]);
    // The node re-posted unchanged (or skipped) needs nothing but service:write; changed, node:write.
    await apply(registration("web"), secrets.web!);
    expect(services()).toEqual(["web"]);
    await expect(apply(registration("web", { Address: "10.0.0.2" }), secrets.web!)).rejects.toThrow(
      /lacks node:write on "c1"/,
    );
    await apply(registration("web", { Address: "10.0.0.2", SkipNodeUpdate: true }), secrets.web!);
    expect(backend.store.view().node("c1").value?.node.Address).toBe("10.0.0.1");
  });

  it("deregister with node:write on the node, or else service:write on what goes", async () => {
    const services = () => (backend.store.view().node("c1").value?.services ?? []).map((s) => s.Service);
    await apply(registration("web"), secrets.web!);
    await expect(apply(deregistration("web"), secrets.reader!)).rejects.toThrow(
      /lacks service:write on "web"/,
    );
    await expect(apply(deregistration("gone"), secrets.reader!)).rejects.toThrow(/Unknown service ID 'gone'/);
    await apply(deregistration("web"), secrets.web!);
    expect(services()).toEqual([]);
    await apply(registration("web"), secrets.web!);
    // The agent token's node:write removes a service whose own token may be long gone.
    await apply(deregistration("web"), secrets["node-only"]!);
    expect(services()).toEqual([]);
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
    await expect(calls["acl.resolve"]!("00000000-0000-4000-8000-0000000000ff")).resolves.toBeNull();
    await expect(calls["acl.resolve"]!(42)).rejects.toThrow(/needs a secret/);
  });
});
