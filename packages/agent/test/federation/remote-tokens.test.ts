// A secondary datacenter without token replication (Consul's default): a global token created in the
// primary is resolved there through `?dc=` forwarding, cached for acl.token_ttl, and kept under
// `extend-cache` while the primary is cut off; its policy comes from the replicated ones. One server and one
// client agent per datacenter; nothing here sleeps.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AgentScratch,
  type Federation,
  pause,
  resume,
  startFederation,
  waitFor,
} from "../../../../scripts/lib/index.js";
import { call, ok } from "./harness.js";

const ROOT = "3f1b2c4d-0000-4000-8000-000000000013";
const acl = [
  `primary_datacenter = "dc1"`,
  `acl {`,
  `  enabled = true`,
  `  default_policy = "deny"`,
  `  down_policy = "extend-cache"`,
  // Short, so that the paused primary is really asked again (and does not answer) below.
  `  token_ttl = "1s"`,
  `  replication_interval = "1s"`,
  `  replication_initial_delay = "1s"`,
  `  tokens {`,
  `    initial_management = "${ROOT}"`,
  `    replication = "${ROOT}"`,
  `  }`,
  `}`,
].join("\n");

const scratch = new AgentScratch();
let fed: Federation;

beforeAll(async () => {
  fed = await startFederation(scratch.root, {
    datacenters: ["dc1", "dc2"],
    servers: 1,
    // dc2's client agent resolves tokens through dc2's server, which asks dc1 for global ones.
    clients: true,
    flags: () => ["-hcl", acl],
    token: ROOT,
  });
}, 180_000);

afterAll(async () => {
  for (const s of fed?.dc("dc1").servers ?? []) resume(s.process);
  await fed?.stop();
  await scratch.dispose();
});

const auth = { "X-Consul-Token": ROOT };
const primary = () => fed.dc("dc1").servers[0]!;
const secondary = () => fed.dc("dc2").servers[0]!;

describe("global tokens in a secondary without token replication", { timeout: 180_000 }, () => {
  it("resolves them in the primary, caches them, extends the cache when the primary is cut off", async () => {
    const policy = await ok<{ ID: string }>(
      primary(),
      "/v1/acl/policy",
      "PUT",
      { Name: "kv-writer", Rules: `key_prefix "" { policy = "write" }\nagent_prefix "" { policy = "read" }` },
      auth,
    );
    const token = await ok<{ SecretID: string; Local: boolean }>(
      primary(),
      "/v1/acl/token",
      "PUT",
      { Policies: [{ ID: policy.ID }] },
      auth,
    );
    expect(token.Local).toBe(false);
    const bearer = { "X-Consul-Token": token.SecretID };
    // Policies replicate even without token replication; the token itself never comes to dc2.
    await waitFor(
      "the policy replicated to dc2",
      async () =>
        (await call(secondary(), `/v1/acl/policy/${policy.ID}?stale`, "GET", undefined, auth)).status === 200
          ? true
          : undefined,
      60_000,
      200,
    );
    const res = await call(secondary(), "/v1/kv/remote/one", "PUT", "v", bearer);
    expect(res.status, res.text).toBe(200);
    expect((await call(secondary(), "/v1/kv/remote/one?raw", "GET", undefined, auth)).text).toBe("v");

    // Token reads are the primary's too, as in Consul: dc2 holds no global tokens to answer them from.
    const selfRead = await call(secondary(), "/v1/acl/token/self", "GET", undefined, bearer);
    expect(selfRead.status, selfRead.text).toBe(200);
    expect((selfRead.json as { SecretID: string }).SecretID).toBe(token.SecretID);
    const listed = await call(secondary(), "/v1/acl/tokens", "GET", undefined, auth);
    expect(listed.status, listed.text).toBe(200);
    expect((listed.json as { AccessorID: string }[]).map((t) => t.AccessorID)).toContain(
      (selfRead.json as { AccessorID: string }).AccessorID,
    );

    // A client agent of dc2 resolves it through dc2's server.
    const client = fed.dc("dc2").client!;
    const self = await call(client, "/v1/agent/self", "GET", undefined, bearer);
    expect(self.status, self.text).toBe(200);

    // Unknown in the primary too: refused as Consul does, by the server and the client agent.
    const stranger = { "X-Consul-Token": "00000000-0000-4000-8000-00000000dead" };
    const unknown = await call(secondary(), "/v1/kv/remote/two", "PUT", "v", stranger);
    expect(unknown.status).toBe(403);
    expect(unknown.text).toContain("ACL not found");
    const unknownOnClient = await call(client, "/v1/agent/self", "GET", undefined, stranger);
    expect(unknownOnClient.status).toBe(403);
    expect(unknownOnClient.text).toContain("ACL not found");

    // The primary stops answering: once the TTL is past, dc2 asks again, gets nothing and keeps the cached
    // answer (the warning in its log says it asked and failed).
    for (const s of fed.dc("dc1").servers) pause(s.process);
    try {
      await waitFor(
        "dc2 to fail resolving in the paused primary while the cached token keeps working",
        async () => {
          const write = await call(secondary(), "/v1/kv/remote/three", "PUT", "v", bearer);
          expect(write.status, write.text).toBe(200);
          const log = await readFile(join(fed.root, "dc2-s1.log"), "utf8");
          return log.includes("cannot resolve an ACL token in the primary datacenter") ? true : undefined;
        },
        60_000,
        200,
      );
    } finally {
      for (const s of fed.dc("dc1").servers) resume(s.process);
    }
  });
});
