import { COMMAND_VERSION } from "@cairn/fsm";
import { describe, expect, it } from "vitest";
import { AclEnforcer } from "../../src/acl/enforcer.js";
import { createApi } from "../../src/app.js";
import { LocalBackend } from "../../src/local-backend.js";
import { anonymousToken, GLOBAL_MANAGEMENT_POLICY, managementToken } from "../../src/routes/acl.js";

const ROOT = "70000000-0000-4000-8000-000000000001";

/** A datacenter's API over its own store, ACLs on, knowing dc1 as the primary. */
async function datacenter(name: string, forward?: (dc: string, r: Request) => Promise<Response> | undefined) {
  const backend = new LocalBackend();
  await backend.apply({
    v: COMMAND_VERSION,
    type: "acl.init",
    policy: GLOBAL_MANAGEMENT_POLICY,
    anonymous: anonymousToken(),
    initialManagement: managementToken("70000000-0000-4000-8000-0000000000aa", ROOT, "root"),
    now: Date.now(),
  });
  const acl = new AclEnforcer({
    store: backend.store,
    datacenter: name,
    primaryDatacenter: "dc1",
    defaultPolicy: "deny",
  });
  const app = createApi({
    backend,
    nodeName: `${name}-node`,
    datacenter: name,
    primaryDatacenter: "dc1",
    acl,
    ...(forward ? { forwardDatacenter: forward } : {}),
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.fetch(
      new Request(`http://x${path}`, {
        method,
        headers: { "X-Consul-Token": ROOT },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    const text = await res.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // plain-text errors stay text
    }
    return { status: res.status, text, json };
  };
  return { backend, app, call };
}

describe("writes in a secondary datacenter", () => {
  it("global ACL objects and config entries go to the primary; local tokens stay", async () => {
    const dc1 = await datacenter("dc1");
    const forwarded: string[] = [];
    const dc2 = await datacenter("dc2", (dc, request) => {
      forwarded.push(
        `${dc} ${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}`,
      );
      return dc === "dc1" ? Promise.resolve(dc1.app.fetch(request)) : undefined;
    });

    const local = await dc2.call("PUT", "/v1/acl/token", { Local: true, Description: "mine" });
    expect(local.status).toBe(200);
    // The body reached the route whole, though the locality was read from it first.
    expect(local.json).toMatchObject({ Local: true, Description: "mine" });
    const accessor = String(local.json?.AccessorID);
    expect(dc2.backend.store.view().acl().token(accessor)).toBeDefined();
    expect(dc1.backend.store.view().acl().token(accessor)).toBeUndefined();
    // Updating it stays here too.
    expect(
      (await dc2.call("PUT", `/v1/acl/token/${accessor}`, { Local: true, Description: "renamed" })).status,
    ).toBe(200);
    expect(forwarded).toEqual([]);

    const global = await dc2.call("PUT", "/v1/acl/token?dc=dc2", { Description: "everywhere" });
    expect(global.status).toBe(200);
    const globalId = String(global.json?.AccessorID);
    expect(dc1.backend.store.view().acl().token(globalId)?.Description).toBe("everywhere");
    expect(dc2.backend.store.view().acl().token(globalId)).toBeUndefined();
    // `dc` naming the secondary is dropped: the primary answers for itself.
    expect(forwarded).toEqual(["dc1 PUT /v1/acl/token"]);

    expect((await dc2.call("PUT", "/v1/acl/policy", { Name: "p", Rules: "" })).status).toBe(200);
    expect(dc1.backend.store.view().acl().policyByName("p", "default")).toBeDefined();
    expect(
      (await dc2.call("PUT", "/v1/config", { Kind: "service-defaults", Name: "web", Protocol: "http" }))
        .status,
    ).toBe(200);
    expect(dc1.backend.store.view().configEntry("service-defaults", "web").value).toBeDefined();
    expect((await dc2.call("DELETE", "/v1/config/service-defaults/web")).status).toBe(200);
    expect(dc1.backend.store.view().configEntry("service-defaults", "web").value).toBeUndefined();
    // Reads stay local.
    expect((await dc2.call("GET", "/v1/config/service-defaults")).json).toEqual([]);
  });

  it("a primary nobody can reach is a clear 500, and bad bodies are still the route's 400", async () => {
    const dc2 = await datacenter("dc2", () => undefined);
    const res = await dc2.call("PUT", "/v1/acl/policy", { Name: "p", Rules: "" });
    expect(res.status).toBe(500);
    expect(res.text).toMatch(/No path to datacenter/);
    const bad = await dc2.app.fetch(
      new Request("http://x/v1/acl/token", {
        method: "PUT",
        headers: { "X-Consul-Token": ROOT },
        body: "{nope",
      }),
    );
    expect(bad.status).toBe(400);
  });

  it("the primary itself forwards nothing", async () => {
    const dc1 = await datacenter("dc1", () => {
      throw new Error("must not forward");
    });
    expect((await dc1.call("PUT", "/v1/acl/policy", { Name: "p", Rules: "" })).status).toBe(200);
  });
});
