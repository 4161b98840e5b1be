// A server's answers to client agents with ACLs on, over a real state store: anti-entropy calls are
// authorized with the agent token they carry, and token resolution hands out a token's records.
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
  calls = {
    ...catalogCalls(storeCatalog(backend), acl),
    ...aclCalls({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny", now: Date.now }),
  };
});

const apply = (command: Command, token: string) =>
  calls["agent.catalog.apply"]!(encodeCommand(command), token);
const read = (token: string) => calls["agent.catalog.read"]!("c1", token);
const registration = (service?: string) =>
  ({
    v: COMMAND_VERSION,
    type: "catalog.register",
    registration: {
      Node: "c1",
      Address: "10.0.0.1",
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
    await expect(read("")).rejects.toThrow(/Permission denied: the agent token lacks node:read on "c1"/);
    await expect(read("00000000-0000-4000-8000-0000000000ff")).rejects.toThrow(/ACL not found/);
  });

  it("write the node with node:write and each service with service:write on it", async () => {
    await expect(apply(registration(), secrets.reader!)).rejects.toThrow(/lacks node:write on "c1"/);
    await expect(apply(registration(), secrets["node-only"]!)).resolves.toBeDefined();
    await expect(apply(registration("web"), secrets["node-only"]!)).rejects.toThrow(
      /lacks service:write on "web"/,
    );
    expect(backend.store.view().node("c1").value?.services ?? []).toEqual([]);
    await apply(registration("web"), secrets.agent!);
    expect(
      backend.store
        .view()
        .node("c1")
        .value?.services.map((s) => s.Service),
    ).toEqual(["web"]);
    await expect(apply(deregistration("web"), secrets["node-only"]!)).rejects.toThrow(
      /lacks service:write on "web"/,
    );
    await apply(deregistration("web"), secrets.agent!);
    expect(backend.store.view().node("c1").value?.services).toEqual([]);
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
