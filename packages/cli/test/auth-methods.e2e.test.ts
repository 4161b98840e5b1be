// `cairn acl auth-method`, `cairn acl binding-rule`, `cairn login` and `cairn logout` against a real API
// server with ACLs on (through the cairn command tree).
import { generateKeyPairSync, sign } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AclEnforcer, createApi, LocalBackend } from "@cairn/api";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";

let ROOT = "";
const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
let server: ReturnType<typeof serve>;

/** A compact RS256 JWS signed with node:crypto. */
function rs256(claims: Record<string, unknown>): string {
  const part = (x: unknown) => Buffer.from(JSON.stringify(x)).toString("base64url");
  const input = `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}`;
  return `${input}.${sign("sha256", Buffer.from(input), keys.privateKey).toString("base64url")}`;
}
let address = "";
let dir = "";

async function run(args: string[], token = ROOT) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    out: (t) => void out.push(String(t)),
    err: (t) => void err.push(t),
    readStdin: async () => Buffer.from(""),
    env: { CAIRN_HTTP_ADDR: address, ...(token ? { CAIRN_HTTP_TOKEN: token } : {}) },
  });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

beforeAll(async () => {
  const backend = new LocalBackend();
  const acl = new AclEnforcer({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny" });
  server = serve({
    fetch: createApi({ backend, nodeName: "cli", datacenter: "dc1", acl }).fetch,
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const boot = (await (await fetch(`http://${address}/v1/acl/bootstrap`, { method: "PUT" })).json()) as {
    SecretID: string;
  };
  ROOT = boot.SecretID;
  dir = await mkdtemp(join(tmpdir(), "cairn-auth-"));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

describe("cairn acl auth-method / binding-rule / login / logout", () => {
  it("creates a jwt method and a rule, logs in to a sink file, logs out", async () => {
    const config = join(dir, "config.json");
    const pem = keys.publicKey.export({ type: "spki", format: "pem" }).toString();
    await writeFile(config, JSON.stringify({ JWTValidationPubKeys: [pem], ClaimMappings: { sub: "user" } }));
    const created = await run([
      "acl",
      "auth-method",
      "create",
      "-type",
      "jwt",
      "-name",
      "ci",
      "-description",
      "CI jobs",
      "-max-token-ttl",
      "10m",
      "-config",
      `@${config}`,
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("Name:          ci");
    expect(created.stdout).toContain("MaxTokenTTL:   10m0s");
    const rule = await run([
      "acl",
      "binding-rule",
      "create",
      "-method",
      "ci",
      "-bind-type",
      "service",
      "-bind-name",
      "job-$" + "{value.user}",
      "-selector",
      "value.user != root",
      "-format",
      "json",
    ]);
    expect(rule.code, rule.stderr).toBe(0);
    const ruleId = (JSON.parse(rule.stdout) as { ID: string }).ID;

    const jwt = rs256({
      sub: "build7",
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 300,
    });
    const bearer = join(dir, "bearer");
    const sink = join(dir, "sink");
    await writeFile(bearer, `${jwt}\n`);
    const login = await run(
      [
        "login",
        "-method",
        "ci",
        "-bearer-token-file",
        bearer,
        "-token-sink-file",
        sink,
        "-meta",
        "job=7",
        "-meta",
        "repo=x",
      ],
      "",
    );
    expect(login.code, login.stderr).toBe(0);
    const secret = await readFile(sink, "utf8");
    expect(secret).toMatch(/^[0-9a-f-]{36}$/);
    const self = (await (
      await fetch(`http://${address}/v1/acl/token/self`, { headers: { "X-Consul-Token": secret } })
    ).json()) as {
      Description: string;
      ServiceIdentities: Array<{ ServiceName: string }>;
    };
    expect(self.ServiceIdentities).toEqual([{ ServiceName: "job-build7" }]);
    expect(self.Description).toBe('token created via login: {"job":"7","repo":"x"}');

    expect((await run(["logout"], secret)).code).toBe(0);
    const again = await run(["logout"], secret);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("ACL not found");

    const listed = await run(["acl", "binding-rule", "list", "-method", "ci"]);
    expect(listed.stdout).toContain(`ID:           ${ruleId}`);
    const updated = await run(["acl", "binding-rule", "update", "-id", ruleId, "-description", "jobs"]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain("Description:  jobs");
    expect(updated.stdout).toContain("BindType:     service");
  });

  it("reads, updates (merged), lists and deletes methods; reports failures", async () => {
    const read = await run(["acl", "auth-method", "read", "-name", "ci", "-format", "json"]);
    expect(JSON.parse(read.stdout)).toMatchObject({ Name: "ci", Type: "jwt", Description: "CI jobs" });
    const updated = await run(["acl", "auth-method", "update", "-name", "ci", "-display-name", "Builds"]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain("DisplayName:   Builds");
    expect(updated.stdout).toContain("Description:   CI jobs");
    const list = await run(["acl", "auth-method", "list"]);
    expect(list.stdout).toContain("Name:          ci");
    expect(list.stdout).not.toContain("Config:");
    const bad = await run(["acl", "auth-method", "create", "-type", "jwt", "-name", "x", "-config", "{}"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("exactly one of");
    expect((await run(["acl", "auth-method", "create", "-name", "x"])).stderr).toContain(
      "Missing required '-type' flag",
    );
    const missing = await run(["login", "-method", "ci"]);
    expect(missing.stderr).toContain("Missing required '-token-sink-file' flag");
    const deleted = await run(["acl", "auth-method", "delete", "-name", "ci"]);
    expect(deleted.stdout).toBe('Auth-method "ci" deleted successfully');
    const gone = await run(["acl", "auth-method", "read", "-name", "ci"]);
    expect([gone.code, gone.stderr]).toEqual([1, 'Auth method not found with name "ci"']);
  });
});
