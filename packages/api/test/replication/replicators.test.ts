import { COMMAND_VERSION } from "@cairn/fsm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalBackend } from "../../src/local-backend.js";
import { replicateAcl } from "../../src/replication/acl-replicator.js";
import { replicateConfigEntries } from "../../src/replication/config-replicator.js";
import { ApplyLimiter } from "../../src/replication/limiter.js";
import { type PrimaryFetch, primaryFetchOver } from "../../src/replication/primary.js";
import { managementToken } from "../../src/routes/acl.js";
import { type AclServer, initAcls, ROOT, startAclServer } from "../acl/harness.js";

/**
 * Replication from a real primary (an HTTP server over its own store) into a secondary's store, through
 * the same fetch the servers use; the secondary's writes are real commands on its own backend.
 */
describe("replication from the primary datacenter", () => {
  let primary: AclServer;
  let secondary: LocalBackend;
  let fetchPrimary: PrimaryFetch;
  const unlimited = () => new ApplyLimiter(1e9, Date.now, async () => {});

  beforeEach(async () => {
    primary = await startAclServer();
    secondary = new LocalBackend();
    // The secondary's leader made its built-ins, and it holds the same initial management token.
    await initAcls(secondary);
    fetchPrimary = primaryFetchOver(
      (request) => {
        const u = new URL(request.url);
        return fetch(primary.url + u.pathname + u.search, { headers: request.headers });
      },
      "dc1",
      () => ROOT,
    );
  });
  afterEach(() => primary.close());

  const acl = (tokens = true) =>
    replicateAcl({
      store: secondary.store,
      apply: (c) => secondary.apply(c),
      primary: fetchPrimary,
      tokens,
      limiter: unlimited(),
    });

  it("copies policies, roles and global tokens; local tokens stay where they are", async () => {
    const policy = await primary.call<{ ID: string }>("PUT", "/v1/acl/policy", ROOT, {
      Name: "web",
      Rules: 'service "web" { policy = "write" }',
    });
    const role = await primary.call<{ ID: string }>("PUT", "/v1/acl/role", ROOT, {
      Name: "web-role",
      Policies: [{ ID: policy.body.ID }],
    });
    const global = await primary.call<{ AccessorID: string; SecretID: string }>(
      "PUT",
      "/v1/acl/token",
      ROOT,
      {
        Policies: [{ ID: policy.body.ID }],
        Roles: [{ ID: role.body.ID }],
      },
    );
    const local = await primary.call<{ AccessorID: string }>("PUT", "/v1/acl/token", ROOT, {
      Policies: [{ Name: "web" }],
      Local: true,
    });
    // A local token of the secondary's own.
    await secondary.apply({
      v: COMMAND_VERSION,
      type: "acl.token.set",
      op: "create",
      token: {
        ...managementToken("5ec0ada2-0000-0000-0000-000000000001", "local-secret", "mine"),
        Local: true,
      },
      now: Date.now(),
    });

    const out = await acl();
    expect(out.skipped).toEqual([]);
    const view = secondary.store.view().acl();
    expect(view.policy(policy.body.ID)?.Rules).toBe('service "web" { policy = "write" }');
    expect(view.role(role.body.ID)?.Policies).toEqual([{ ID: policy.body.ID }]);
    const copied = view.tokenBySecret(global.body.SecretID);
    expect(copied?.AccessorID).toBe(global.body.AccessorID);
    expect(copied?.Local).toBe(false);
    expect(view.token(local.body.AccessorID)).toBeUndefined();
    expect(view.token("5ec0ada2-0000-0000-0000-000000000001")?.Local).toBe(true);
    expect(out.policyIndex).toBeGreaterThan(0);
    expect(out.tokenIndex).toBeGreaterThan(0);

    // Nothing changed: nothing written, nothing duplicated.
    const again = await acl();
    expect(again.updates).toBe(0);
    expect(
      secondary.store
        .view()
        .acl()
        .readPolicies("*")
        .value.filter((p) => p.Name === "web"),
    ).toHaveLength(1);
  });

  it("deletions in the primary revoke in the secondary", async () => {
    const policy = await primary.call<{ ID: string }>("PUT", "/v1/acl/policy", ROOT, {
      Name: "gone",
      Rules: "",
    });
    const token = await primary.call<{ AccessorID: string; SecretID: string }>("PUT", "/v1/acl/token", ROOT, {
      Policies: [{ ID: policy.body.ID }],
    });
    await acl();
    expect(secondary.store.view().acl().tokenBySecret(token.body.SecretID)).toBeDefined();
    await primary.call("DELETE", `/v1/acl/token/${token.body.AccessorID}`, ROOT);
    await primary.call("DELETE", `/v1/acl/policy/${policy.body.ID}`, ROOT);
    const out = await acl();
    expect(out.skipped).toEqual([]);
    const view = secondary.store.view().acl();
    expect(view.tokenBySecret(token.body.SecretID)).toBeUndefined();
    expect(view.policy(policy.body.ID)).toBeUndefined();
  });

  it("without token replication only policies and roles move", async () => {
    const token = await primary.call<{ SecretID: string }>("PUT", "/v1/acl/token", ROOT, {});
    const out = await acl(false);
    expect(out.tokenIndex).toBe(0);
    expect(secondary.store.view().acl().tokenBySecret(token.body.SecretID)).toBeUndefined();
  });

  it("leaves out a policy whose rules do not parse, and what links to it, whole", async () => {
    // Written around the API's validation, as an older or different primary might hold it.
    await primary.backend.apply({
      v: COMMAND_VERSION,
      type: "acl.policy.set",
      op: "create",
      policy: {
        ID: "bad00000-0000-0000-0000-000000000001",
        Name: "bad",
        Description: "",
        Rules: "service {",
        Datacenters: [],
        Namespace: "default",
      },
    });
    const good = await primary.call<{ ID: string }>("PUT", "/v1/acl/policy", ROOT, {
      Name: "good",
      Rules: "",
    });
    const linked = await primary.call("PUT", "/v1/acl/token", ROOT, {
      AccessorID: "bad00000-0000-0000-0000-0000000000aa",
      Policies: [{ ID: "bad00000-0000-0000-0000-000000000001" }],
    });
    expect(linked.status).toBe(200);
    const out = await acl();
    expect(out.skipped, out.skipped.join("\n")).toHaveLength(2);
    expect(out.skipped[0]).toMatch(/policy "bad" .*rules do not parse/);
    expect(out.skipped[1]).toMatch(/token bad00000-0000-0000-0000-0000000000aa: No such ACL policy/);
    const view = secondary.store.view().acl();
    expect(view.policy("bad00000-0000-0000-0000-000000000001")).toBeUndefined();
    expect(view.token("bad00000-0000-0000-0000-0000000000aa")).toBeUndefined();
    expect(view.policy(good.body.ID)).toBeDefined();
  });

  it("fails the pass when the primary cannot be read", async () => {
    await primary.close();
    await expect(acl()).rejects.toThrow();
    primary = await startAclServer();
  });

  it("replicates config entries, updates and deletions", async () => {
    const put = (body: unknown) => primary.call("PUT", "/v1/config", ROOT, body);
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "http" })).status).toBe(200);
    expect(
      (
        await put({
          Kind: "service-resolver",
          Name: "web",
          Failover: { "*": { Datacenters: ["dc2", "dc3"] } },
        })
      ).status,
    ).toBe(200);
    const run = () =>
      replicateConfigEntries({
        store: secondary.store,
        apply: (c) => secondary.apply(c),
        primary: fetchPrimary,
        limiter: unlimited(),
      });
    const first = await run();
    expect(first.skipped).toEqual([]);
    expect(first.updates).toBe(2);
    const view = () => secondary.store.view();
    expect(view().configEntry("service-defaults", "web").value?.Protocol).toBe("http");
    expect(view().configEntry("service-resolver", "web").value?.Failover).toEqual({
      "*": { Datacenters: ["dc2", "dc3"] },
    });
    expect((await run()).updates).toBe(0);
    await primary.call("DELETE", "/v1/config/service-resolver/web", ROOT);
    await put({ Kind: "service-defaults", Name: "web", Protocol: "grpc" });
    const third = await run();
    expect(third.updates).toBe(2);
    expect(view().configEntry("service-resolver", "web").value).toBeUndefined();
    expect(view().configEntry("service-defaults", "web").value?.Protocol).toBe("grpc");
  });
});

describe("ApplyLimiter", () => {
  it("spaces updates to the rate on an injected clock", async () => {
    let clock = 0;
    const waits: number[] = [];
    const limiter = new ApplyLimiter(
      100,
      () => clock,
      async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    );
    for (let i = 0; i < 201; i++) await limiter.take();
    // 201 updates at 100 per second take two seconds.
    expect(clock).toBeCloseTo(2000, 6);
    expect(waits.every((ms) => ms <= 10 + 1e-9)).toBe(true);
  });
});
