// `cairn login -type oidc` against a real API server and a real OpenID Provider: the command prints the
// provider's URL, a scripted browser signs in there and is redirected to the command's loopback
// listener, and the token lands in the sink file.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AclEnforcer, createApi, LocalBackend } from "@cairn/api";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browse, startProvider, type TestProvider } from "../../../scripts/lib/oidc-provider.js";
import { freePort } from "../../../scripts/lib/ports.js";
import { waitFor } from "../../../scripts/lib/wait.js";
import { runCli } from "../src/cli.js";

let ROOT = "";
let server: ReturnType<typeof serve>;
let op: TestProvider;
let address = "";
let dir = "";
let port = 0;
const redirect = () => `http://localhost:${port}/oidc/callback`;

async function api(method: string, path: string, body?: unknown, token = ROOT) {
  const res = await fetch(`http://${address}${path}`, {
    method,
    headers: { "X-Consul-Token": token },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

beforeAll(async () => {
  port = await freePort();
  op = await startProvider({
    redirectUris: [redirect()],
    accounts: { alice: { groups: ["ops"] } },
  });
  const backend = new LocalBackend();
  const acl = new AclEnforcer({ store: backend.store, datacenter: "dc1", defaultPolicy: "deny" });
  server = serve({
    fetch: createApi({ backend, nodeName: "cli", datacenter: "dc1", acl }).fetch,
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  ROOT = String((await api("PUT", "/v1/acl/bootstrap", undefined, "")).SecretID);
  dir = await mkdtemp(join(tmpdir(), "cairn-oidc-"));
  await api("PUT", "/v1/acl/auth-method", {
    Name: "op",
    Type: "oidc",
    MaxTokenTTL: "5m",
    Config: {
      OIDCDiscoveryURL: op.issuer,
      OIDCClientID: op.clientId,
      OIDCClientSecret: op.clientSecret,
      AllowedRedirectURIs: ["http://localhost:8550/oidc/callback"],
      OIDCScopes: ["profile"],
      ClaimMappings: { sub: "user" },
      ListClaimMappings: { groups: "groups" },
    },
  });
  await api("PUT", "/v1/acl/binding-rule", {
    AuthMethod: "op",
    Selector: '"ops" in list.groups',
    BindType: "service",
    BindName: "web",
  });
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await op?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("cairn login -type oidc", () => {
  it("prints the URL, takes the provider's redirect on localhost and writes the token", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const sink = join(dir, "token");
    const done = runCli(
      [
        "login",
        "-type=oidc",
        "-method=op",
        `-token-sink-file=${sink}`,
        `-oidc-callback-listen-addr=127.0.0.1:${port}`,
        "-meta=host=laptop",
      ],
      {
        out: (t) => void out.push(String(t)),
        err: (t) => void err.push(t),
        readStdin: async () => Buffer.from(""),
        env: { CAIRN_HTTP_ADDR: address },
      },
    );
    const url = await waitFor("the auth URL", async () => /https?:\/\/\S+/.exec(out.join("\n"))?.[0], 20_000);
    expect(out.join("\n")).toContain("Complete the login via your OIDC provider");
    const page = await browse(url, "alice", redirect(), true);
    expect(page.body).toContain("Signed in via your OIDC provider");
    expect(await done, err.join("\n")).toBe(0);
    const secret = (await readFile(sink, "utf8")).trim();
    const self = await api("GET", "/v1/acl/token/self", undefined, secret);
    expect(self.AuthMethod).toBe("op");
    expect(self.Description).toBe('token created via login: {"host":"laptop"}');
    expect(self.ServiceIdentities).toEqual([{ ServiceName: "web" }]);
  });

  it("reports a provider refusal and a redirect the method does not allow", async () => {
    const run = (args: string[]) => {
      const err: string[] = [];
      const out: string[] = [];
      const code = runCli(args, {
        out: (t) => void out.push(String(t)),
        err: (t) => void err.push(t),
        readStdin: async () => Buffer.from(""),
        env: { CAIRN_HTTP_ADDR: address },
      });
      return { code, err, out };
    };
    const unknown = run([
      "login",
      "-type=oidc",
      "-method=nope",
      `-token-sink-file=${join(dir, "t2")}`,
      "-oidc-callback-listen-addr=127.0.0.1:0",
    ]);
    expect(await unknown.code).toBe(1);
    expect(unknown.err.join("\n")).toMatch(/^Error logging in: .*403/);
    // The callback listener reports what the provider sent back.
    const denied = run([
      "login",
      "-type=oidc",
      "-method=op",
      `-token-sink-file=${join(dir, "t3")}`,
      `-oidc-callback-listen-addr=127.0.0.1:${port}`,
    ]);
    await waitFor("the auth URL", async () => /https?:\/\/\S+/.exec(denied.out.join("\n"))?.[0], 20_000);
    const res = await fetch(`${redirect()}?error=access_denied&error_description=nope`);
    expect(res.status).toBe(400);
    await res.text();
    expect(await denied.code).toBe(1);
    expect(denied.err.join("\n")).toBe(
      "Error logging in: the OIDC provider refused the login: access_denied: nope",
    );
  });
});
