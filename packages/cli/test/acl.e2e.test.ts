// `cairn acl ...` and `cairn namespace ...` end to end against a real API server with ACLs on.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AclEnforcer, createApi, LocalBackend } from "@cairn/api";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cairnInProcess } from "./helpers/cairn.js";

let server: ReturnType<typeof serve>;
let address = "";
let dir = "";
let root = "";

const run = (args: string[], token = root) =>
  cairnInProcess(args, { env: { CAIRN_HTTP_ADDR: address, ...(token ? { CAIRN_HTTP_TOKEN: token } : {}) } });

beforeAll(async () => {
  const backend = new LocalBackend();
  const acl = new AclEnforcer({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny" });
  const app = createApi({ backend, nodeName: "cli", datacenter: "dc1", acl });
  server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), "cairn-acl-"));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

describe("cairn acl", () => {
  it("bootstrap once, printing the management token; a second time fails", async () => {
    const first = await run(["acl", "bootstrap", "-format", "json"], "");
    expect(first.code, first.stderr).toBe(0);
    root = (JSON.parse(first.stdout) as { SecretID: string }).SecretID;
    expect(root).toMatch(/^[0-9a-f-]{36}$/);
    const again = await run(["acl", "bootstrap"], "");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("ACL bootstrap no longer allowed");
  });

  it("policy create from @file, token create with -policy-name and -expires-ttl, read, list, update, delete", async () => {
    const rules = join(dir, "rules.hcl");
    await writeFile(rules, 'key_prefix "app/" { policy = "write" }\n');
    const policy = await run([
      "acl",
      "policy",
      "create",
      "-name",
      "app",
      "-description",
      "app keys",
      "-rules",
      `@${rules}`,
    ]);
    expect(policy.code, policy.stderr).toBe(0);
    expect(policy.stdout).toContain("Name:         app");
    expect(policy.stdout).toContain('key_prefix "app/"');

    const created = await run([
      "acl",
      "token",
      "create",
      "-description",
      "web",
      "-policy-name",
      "app",
      "-expires-ttl",
      "1h",
      "-service-identity",
      "web:dc1",
      "-format",
      "json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const token = JSON.parse(created.stdout) as {
      AccessorID: string;
      SecretID: string;
      ExpirationTime: string;
    };
    expect(token.ExpirationTime).toBeTruthy();

    const read = await run(["acl", "token", "read", "-id", token.AccessorID]);
    // The management token in use may write ACLs: it sees the secret, as with Consul.
    expect(read.stdout).toContain(`SecretID:         ${token.SecretID}`);
    expect(read.stdout).toContain("Policies:");
    expect(read.stdout).toContain(" - app");
    expect(read.stdout).toContain("web (Datacenters: dc1)");
    const self = await run(["acl", "token", "read", "-self"], token.SecretID);
    expect(self.stdout).toContain(token.SecretID);

    const listed = await run(["acl", "token", "list"]);
    expect(listed.stdout).toContain(token.AccessorID);
    expect(listed.stdout).toContain(token.SecretID);

    const updated = await run(["acl", "token", "update", "-id", token.AccessorID, "-description", "renamed"]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain("Description:      renamed");
    expect(updated.stdout).toContain(" - app");

    expect((await run(["acl", "token", "delete", "-id", token.AccessorID])).stdout).toContain(
      "deleted successfully",
    );
    expect((await run(["acl", "token", "read", "-id", token.AccessorID])).code).toBe(1);
  });

  it("roles, policy update and delete by name; bad rules fail with the position", async () => {
    const role = await run(["acl", "role", "create", "-name", "ops", "-policy-name", "app"]);
    expect(role.code, role.stderr).toBe(0);
    expect(role.stdout).toContain(" - app");
    expect((await run(["acl", "role", "list"])).stdout).toContain("ops");
    const policy = await run(["acl", "policy", "read", "-name", "app", "-format", "json"]);
    const id = (JSON.parse(policy.stdout) as { ID: string }).ID;
    const upd = await run(["acl", "policy", "update", "-id", id, "-description", "changed"]);
    expect(upd.stdout).toContain("Description:  changed");
    const bad = await run([
      "acl",
      "policy",
      "create",
      "-name",
      "bad",
      "-rules",
      'key "x" { policy = "nope" }',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("line 1, column");
    expect((await run(["acl", "role", "delete", "-name", "ops"])).code).toBe(0);
    const gone = await run(["acl", "role", "read", "-name", "ops"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('Role not found with name "ops"');
    expect((await run(["acl", "policy", "list"])).stdout).toContain("global-management");
  });
});

describe("cairn namespace", () => {
  it("create, read, update, list, delete", async () => {
    const made = await run([
      "namespace",
      "create",
      "-name",
      "team",
      "-description",
      "d",
      "-meta",
      "owner=ops",
      "-default-policy-name",
      "app",
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain("Name: team");
    expect(made.stdout).toContain("owner: ops");
    expect(made.stdout).toContain(" - app");
    const upd = await run(["namespace", "update", "-name", "team", "-description", "new"]);
    expect(upd.stdout).toContain("Description: new");
    expect(upd.stdout).toContain("owner: ops");
    expect((await run(["namespace", "list"])).stdout).toContain("Name: default");
    expect((await run(["namespace", "delete", "team"])).code).toBe(0);
    expect((await run(["namespace", "read", "team"])).stdout).toContain("Deleted At:");
  });
});
