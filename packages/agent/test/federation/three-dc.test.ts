// Three datacenters of three servers and a client agent each, ACLs on (default deny) in each: requests
// reach any datacenter from any other, authorized there with the caller's token; a dead remote server is
// skipped; a datacenter whose servers are all down or frozen answers a clear error within the deadline
// while the others keep working.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AgentScratch,
  type Federation,
  kill,
  pause,
  resume,
  startFederation,
  waitFor,
} from "../../../../scripts/lib/index.js";
import { call, ok } from "./harness.js";

const ROOT = "00000000-0000-4000-8000-0000000000aa";
const READER = "00000000-0000-4000-8000-0000000000bb";
const root = { "x-consul-token": ROOT };
const acl = `acl {\n enabled = true\n default_policy = "deny"\n tokens {\n initial_management = "${ROOT}"\n agent = "${ROOT}"\n }\n}`;

const scratch = new AgentScratch();
let fed: Federation;

beforeAll(async () => {
  fed = await startFederation(scratch.root, {
    datacenters: ["dc1", "dc2", "dc3"],
    flags: () => ["-hcl", acl],
    token: ROOT,
  });
}, 240_000);

afterAll(async () => {
  await fed?.stop();
  await scratch.dispose();
});

const dc = (name: string) => fed.dc(name);

describe("dc forwarding between three datacenters", { timeout: 120_000 }, () => {
  it("every datacenter reaches every other one, servers and client agents alike", async () => {
    for (const from of ["dc1", "dc2", "dc3"]) {
      for (const to of ["dc1", "dc2", "dc3"]) {
        const agent = to === "dc2" ? dc(from).client! : dc(from).servers[0]!;
        expect(await ok(agent, `/v1/kv/from/${from}?dc=${to}`, "PUT", from, root)).toBe(true);
      }
    }
    for (const to of ["dc1", "dc2", "dc3"]) {
      const keys = await ok<string[]>(dc(to).servers[1]!, "/v1/kv/from/?keys", "GET", undefined, root);
      expect(keys).toEqual(["from/dc1", "from/dc2", "from/dc3"]);
    }
  });

  it("the remote datacenter authorizes with the caller's token", async () => {
    // A policy and token made in dc3 through dc1 (ACLs of each datacenter are its own here).
    const policy = { Name: "reader", Rules: 'key_prefix "from/" { policy = "read" }' };
    // A blocking list of dc3's policies, held there until the policy is made.
    const before = await call(dc("dc2").client!, "/v1/acl/policies?dc=dc3", "GET", undefined, root);
    expect(before.status).toBe(200);
    const blocked = call(
      dc("dc2").client!,
      `/v1/acl/policies?dc=dc3&index=${before.headers.get("x-consul-index")}&wait=60s`,
      "GET",
      undefined,
      root,
    );
    await ok(dc("dc1").servers[0]!, "/v1/acl/policy?dc=dc3", "PUT", policy, root);
    const woken = await blocked;
    expect((woken.json as { Name: string }[]).map((p) => p.Name)).toContain("reader");
    await ok(
      dc("dc1").servers[0]!,
      "/v1/acl/token?dc=dc3",
      "PUT",
      { SecretID: READER, Policies: [{ Name: "reader" }] },
      root,
    );
    const reader = { "x-consul-token": READER };
    const read = await call(dc("dc1").client!, "/v1/kv/from/dc1?dc=dc3&raw", "GET", undefined, reader);
    expect([read.status, read.text]).toEqual([200, "dc1"]);
    // The token is dc3's: dc1 does not know it, and it may not write in dc3.
    expect((await call(dc("dc1").client!, "/v1/kv/from/dc1?raw", "GET", undefined, reader)).status).toBe(403);
    const write = await call(dc("dc1").servers[2]!, "/v1/kv/from/x?dc=dc3", "PUT", "no", reader);
    expect(write.status).toBe(403);
    expect(write.text).toMatch(/Permission denied/);
    // No token: anonymous in dc3, denied.
    expect((await call(dc("dc2").servers[0]!, "/v1/kv/from/dc1?dc=dc3")).status).toBe(403);
    // The token as ?token= travels too.
    expect((await call(dc("dc2").client!, `/v1/kv/from/dc1?dc=dc3&token=${READER}`)).status).toBe(200);
    const self = await ok<{ SecretID: string }>(
      dc("dc2").client!,
      "/v1/acl/token/self?dc=dc3",
      "GET",
      undefined,
      reader,
    );
    expect(self.SecretID).toBe(READER);
  });

  it("a dead server of the remote datacenter is skipped, its reads answered by another", async () => {
    // The harness waited for every dc1 server to know every dc2 server over the WAN: each has one to try.
    // Two of dc2's three servers die at once (no quorum left): stale reads still have a server to answer.
    await Promise.all(
      dc("dc2")
        .servers.slice(0, 2)
        .map((s) => kill(s.process)),
    );
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const res = await call(
        dc("dc1").servers[i % 3]!,
        "/v1/kv/from/dc1?dc=dc2&stale&raw",
        "GET",
        undefined,
        root,
      );
      expect([res.status, res.text], `read ${i}`).toEqual([200, "dc1"]);
      expect(performance.now() - started).toBeLessThan(10_000);
    }
  });

  it("a datacenter whose servers are all down answers a clear error at once; the others keep working", async () => {
    await kill(dc("dc2").servers[2]!.process);
    for (const path of ["/v1/kv/from/dc1?dc=dc2", "/v1/health/service/x?dc=dc2&index=1&wait=30s"]) {
      const started = performance.now();
      const res = await call(dc("dc1").servers[0]!, path, "GET", undefined, root);
      expect(res.status).toBe(500);
      expect(res.text).toMatch(/rpc error/);
      expect(performance.now() - started).toBeLessThan(10_000);
    }
    const write = await call(dc("dc3").client!, "/v1/kv/x?dc=dc2", "PUT", "v", root);
    expect(write.status).toBe(500);
    // A known datacenter whose servers cannot be reached: not "No path to datacenter".
    const later = await call(dc("dc1").servers[1]!, "/v1/kv/from/dc1?dc=dc2", "GET", undefined, root);
    expect(later.status).toBe(500);
    expect(later.text).toMatch(/rpc error/);
    expect(later.text).not.toMatch(/No path/);
    expect(await ok(dc("dc1").servers[0]!, "/v1/kv/local", "PUT", "ok", root)).toBe(true);
    const other = await call(dc("dc1").servers[0]!, "/v1/kv/from/dc1?dc=dc3&raw", "GET", undefined, root);
    expect([other.status, other.text]).toEqual([200, "dc1"]);
  });

  it("a frozen datacenter (its servers stopped, sockets open) fails within the request deadline", async () => {
    for (const s of dc("dc3").servers) pause(s.process);
    try {
      const started = performance.now();
      const res = await call(dc("dc1").client!, "/v1/kv/from/dc1?dc=dc3", "GET", undefined, root, 60_000);
      expect(res.status).toBe(500);
      expect(res.text).toMatch(/rpc error/);
      // The 10 s deadline, with room for a loaded machine.
      expect(performance.now() - started).toBeLessThan(25_000);
    } finally {
      for (const s of dc("dc3").servers) resume(s.process);
    }
    await waitFor(
      "dc3 answering again",
      async () => {
        const res = await call(dc("dc1").servers[0]!, "/v1/kv/from/dc1?dc=dc3&raw", "GET", undefined, root);
        return res.status === 200 ? res.text : undefined;
      },
      60_000,
      500,
    );
  });
});
