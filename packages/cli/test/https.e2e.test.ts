// The CLI against real agents over HTTPS: certificates made with `cairn tls`, the TLS flags and their
// CONSUL_* / CAIRN_* variables, with and without client certificates (https verify_incoming).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  awaitLeader,
  freePorts,
  spawnAgent,
  stop,
  waitFor,
} from "../../../scripts/lib/index.js";
import { cairnInProcess } from "./helpers/cairn.js";

let dir: string;
let open: AgentProcess; // TLS only (HTTP off), no client certificate required
let strict: AgentProcess; // HTTPS requiring a client certificate
let openHttps: number;
let strictHttps: number;
const file = (name: string) => join(dir, name);

function tlsHcl(verifyIncoming: boolean): string {
  return `tls {
  defaults {
    ca_file = ${JSON.stringify(file("consul-agent-ca.pem"))}
    cert_file = ${JSON.stringify(file("dc1-server-consul-0.pem"))}
    key_file = ${JSON.stringify(file("dc1-server-consul-0-key.pem"))}
  }
  https { verify_incoming = ${verifyIncoming} }
}`;
}

const cli = (args: string[], env: Record<string, string> = {}) => cairnInProcess(args, { env });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-https-"));
  const tls = (...args: string[]) => cairnInProcess(["tls", ...args], { cwd: dir });
  expect((await tls("ca", "create")).code).toBe(0);
  expect((await tls("cert", "create", "-server")).code).toBe(0);
  expect((await tls("cert", "create", "-cli")).code).toBe(0);
  // A client certificate from an unrelated CA, in its own directory.
  mkdirSync(file("other"));
  expect((await cairnInProcess(["tls", "ca", "create"], { cwd: file("other") })).code).toBe(0);
  expect((await cairnInProcess(["tls", "cert", "create", "-cli"], { cwd: file("other") })).code).toBe(0);

  const [h1, s1, t1, h2, s2, t2] = (await freePorts(6)) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  openHttps = t1;
  strictHttps = t2;
  open = spawnAgent({
    name: "open",
    ports: { http: h1, server: s1 },
    flags: ["-dev", "-node", "open", "-https-port", String(t1), "-http-port", "-1", "-hcl", tlsHcl(false)],
  });
  strict = spawnAgent({
    name: "strict",
    ports: { http: h2, server: s2 },
    flags: ["-dev", "-node", "strict", "-https-port", String(t2), "-hcl", tlsHcl(true)],
  });
  await awaitLeader([strict]);
  // The TLS-only agent has no plain HTTP port to poll: wait until a write over HTTPS goes through.
  await waitFor(
    "the TLS-only agent to take writes",
    async () => {
      const put = await cli([
        "kv",
        "put",
        "-http-addr",
        `https://127.0.0.1:${t1}`,
        "-ca-file",
        file("consul-agent-ca.pem"),
        "ready",
        "1",
      ]);
      return put.code === 0 ? true : undefined;
    },
    60_000,
    250,
  );
}, 120_000);

afterAll(async () => {
  await Promise.all([open, strict].filter((a) => a !== undefined).map((a) => stop(a.process)));
  rmSync(dir, { recursive: true, force: true });
});

describe("the CLI over HTTPS", () => {
  it("reaches a TLS-only agent with -ca-file, CONSUL_CACERT + CONSUL_HTTP_SSL, and the CAIRN_* twins", async () => {
    const ca = file("consul-agent-ca.pem");
    expect(
      await cli(["kv", "put", "-http-addr", `https://127.0.0.1:${openHttps}`, "-ca-file", ca, "k", "v1"]),
    ).toMatchObject({
      code: 0,
      stdout: "Success! Data written to: k\n",
    });
    expect(
      await cli(["kv", "get", "k"], {
        CONSUL_HTTP_ADDR: `127.0.0.1:${openHttps}`,
        CONSUL_HTTP_SSL: "true",
        CONSUL_CACERT: ca,
      }),
    ).toMatchObject({ code: 0, stdout: "v1\n" });
    expect(
      await cli(["kv", "get", "k"], { CAIRN_HTTP_ADDR: `https://localhost:${openHttps}`, CAIRN_CACERT: ca }),
    ).toMatchObject({ code: 0, stdout: "v1\n" });
    expect(
      await cli(["kv", "get", "k"], {
        CONSUL_HTTP_ADDR: `https://127.0.0.1:${openHttps}`,
        CONSUL_CAPATH: dir,
      }),
    ).toMatchObject({ code: 1 }); // the directory holds keys too: not a CA directory
    const caDir = file("cas");
    mkdirSync(caDir);
    copyFileSync(ca, join(caDir, "ca.pem"));
    expect(
      await cli(["kv", "get", "-ca-path", caDir, "-http-addr", `https://127.0.0.1:${openHttps}`, "k"]),
    ).toMatchObject({ code: 0, stdout: "v1\n" });
  });

  it("verifies the server: no CA fails, CONSUL_HTTP_SSL_VERIFY=false skips, -tls-server-name picks the name", async () => {
    const addr = `https://127.0.0.1:${openHttps}`;
    const ca = file("consul-agent-ca.pem");
    const unverified = await cli(["kv", "get", "-http-addr", addr, "k"]);
    expect(unverified.code).toBe(1);
    expect(unverified.stderr).toMatch(/certificate/i);
    expect(
      await cli(["kv", "get", "-http-addr", addr, "k"], { CONSUL_HTTP_SSL_VERIFY: "false" }),
    ).toMatchObject({
      code: 0,
      stdout: "v1\n",
    });
    expect(
      await cli([
        "kv",
        "get",
        "-http-addr",
        addr,
        "-ca-file",
        ca,
        "-tls-server-name",
        "server.dc1.consul",
        "k",
      ]),
    ).toMatchObject({ code: 0, stdout: "v1\n" });
    const wrongName = await cli(["kv", "get", "-http-addr", addr, "-ca-file", ca, "k"], {
      CONSUL_TLS_SERVER_NAME: "client.dc1.consul",
    });
    expect(wrongName.code).toBe(1);
    expect(wrongName.stderr).toMatch(/client\.dc1\.consul/);
    // Plain HTTP to the HTTPS port gets no API answer.
    expect((await cli(["kv", "get", "-http-addr", `http://127.0.0.1:${openHttps}`, "k"])).code).toBe(1);
  });

  it("presents a client certificate where https verify_incoming requires one", async () => {
    const addr = `https://127.0.0.1:${strictHttps}`;
    const ca = file("consul-agent-ca.pem");
    const without = await cli(["kv", "put", "-http-addr", addr, "-ca-file", ca, "s", "x"]);
    expect(without.code).toBe(1);
    expect(without.stderr).toBe(
      `Error! Failed writing data: Put "${addr}/v1/kv/s": remote error: tls: certificate required\n`,
    );
    expect(
      await cli([
        "kv",
        "put",
        "-http-addr",
        addr,
        "-ca-file",
        ca,
        "-client-cert",
        file("dc1-cli-consul-0.pem"),
        "-client-key",
        file("dc1-cli-consul-0-key.pem"),
        "s",
        "with-cert",
      ]),
    ).toMatchObject({ code: 0, stdout: "Success! Data written to: s\n" });
    expect(
      await cli(["kv", "get", "s"], {
        CONSUL_HTTP_ADDR: addr,
        CONSUL_CACERT: ca,
        CONSUL_CLIENT_CERT: file("dc1-cli-consul-0.pem"),
        CONSUL_CLIENT_KEY: file("dc1-cli-consul-0-key.pem"),
      }),
    ).toMatchObject({ code: 0, stdout: "with-cert\n" });
    const foreign = await cli(["kv", "get", "s"], {
      CONSUL_HTTP_ADDR: addr,
      CONSUL_CACERT: ca,
      CONSUL_CLIENT_CERT: file("other/dc1-cli-consul-0.pem"),
      CONSUL_CLIENT_KEY: file("other/dc1-cli-consul-0-key.pem"),
    });
    expect(foreign.code).toBe(1);
    const mismatched = await cli(["kv", "get", "-http-addr", addr, "-ca-file", ca, "s"], {
      CONSUL_CLIENT_CERT: file("dc1-cli-consul-0.pem"),
      CONSUL_CLIENT_KEY: file("other/dc1-cli-consul-0-key.pem"),
    });
    expect(mismatched).toMatchObject({ code: 1 });
    expect(mismatched.stderr).toContain("does not match the certificate");
    const unreadable = await cli(["kv", "get", "-http-addr", addr, "-ca-file", file("missing.pem"), "s"]);
    expect(unreadable.stderr).toMatch(/^Error: Error loading ca-file: ENOENT/);
  });
});
