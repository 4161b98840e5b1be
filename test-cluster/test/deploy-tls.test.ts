// The TLS variants in deploy/ work as OPERATIONS.md walks through them: certificates from `cairn tls`,
// config/tls-server.hcl and config/tls-client.hcl load with the example configs, a server and a client agent
// started with them (on loopback) form a TLS-only cluster the CLI reaches over HTTPS with its certificate,
// and docker-compose.tls.yml runs commands the agent accepts.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAgentConfig } from "@cairn/agent";
import { runCli } from "@cairn/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_START_MS, agentArgv, REPO_ROOT } from "../../scripts/lib/agent.js";
import { freePorts } from "../../scripts/lib/ports.js";
import { type Spawned, spawnTracked, stop } from "../../scripts/lib/processes.js";
import { waitFor } from "../../scripts/lib/wait.js";

const deploy = (path: string) => join(REPO_ROOT, "deploy", path);
const dir = mkdtempSync(join(tmpdir(), "cairn-deploy-tls-"));
const certs = join(dir, "tls");
const started: Spawned[] = [];

async function cairn(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    out: (t) => {
      stdout += `${typeof t === "string" ? t : Buffer.from(t).toString()}\n`;
    },
    err: (t) => {
      stderr += `${t}\n`;
    },
    readStdin: async () => Buffer.alloc(0),
    env: options.env ?? {},
    cwd: options.cwd,
  });
  return { code, stdout, stderr };
}

/** A deploy/config TLS file with its certificate paths pointing at this test's directory. */
function tlsFile(role: "server" | "client"): string {
  const text = readFileSync(deploy(`config/tls-${role}.hcl`), "utf8");
  expect(text).toContain("/etc/cairn/tls/");
  const path = join(dir, `tls-${role}.hcl`);
  writeFileSync(path, text.replaceAll("/etc/cairn/tls/", `${certs}/`));
  return path;
}

beforeAll(async () => {
  mkdirSync(certs);
  for (const args of [
    ["ca", "create"],
    ["cert", "create", "-server"],
    ["cert", "create", "-client"],
    ["cert", "create", "-cli"],
  ]) {
    const result = await cairn(["tls", ...args], { cwd: certs });
    expect(result.code, result.stderr).toBe(0);
  }
});

afterAll(async () => {
  await Promise.all(started.map((p) => stop(p, 2000)));
  rmSync(dir, { recursive: true, force: true });
});

describe("deploy/config/tls-*.hcl", () => {
  it("turn the example configs into TLS-only agents verifying each other", () => {
    for (const role of ["server", "client"] as const) {
      const configDir = join(dir, `${role}.d`);
      mkdirSync(configDir);
      copyFileSync(deploy(`config/${role}.hcl`), join(configDir, `${role}.hcl`));
      copyFileSync(tlsFile(role), join(configDir, `tls-${role}.hcl`));
      const { config } = loadAgentConfig(["-config-dir", configDir], { HOSTNAME: "x" });
      expect(config.server).toBe(role === "server");
      expect(config.ports).toMatchObject({ http: -1, https: 8501, serfLan: 8301 });
      expect(config.tls.internalRpc).toMatchObject({
        caFile: join(certs, "consul-agent-ca.pem"),
        certFile: join(certs, `dc1-${role}-consul-0.pem`),
        verifyIncoming: true,
        verifyOutgoing: true,
        verifyServerHostname: true,
      });
      expect(config.tls.https).toMatchObject({
        verifyIncoming: true,
        keyFile: join(certs, `dc1-${role}-consul-0-key.pem`),
      });
    }
  });

  it(
    "run a server and a client agent that the CLI reaches over HTTPS with its certificate only",
    async () => {
      const [sHttps, sRpc, sLan, cHttps, cLan] = (await freePorts(5)) as number[];
      const start = (name: string, flags: string[]) => {
        const { command, args, cwd } = agentArgv({ flags });
        const p = spawnTracked(name, command, args, { cwd, logFile: join(dir, `${name}.log`) });
        started.push(p);
        return p;
      };
      const common = (name: string) => [
        "-node",
        name,
        "-data-dir",
        join(dir, name),
        "-bind",
        "127.0.0.1",
        "-client",
        "127.0.0.1",
        "-dns-port",
        "-1",
      ];
      const server = start("tls-server", [
        ...common("tls-server"),
        "-server",
        "-bootstrap-expect",
        "1",
        "-server-port",
        String(sRpc),
        "-serf-lan-port",
        String(sLan),
        "-serf-wan-port",
        "-1",
        "-https-port",
        String(sHttps),
        "-config-file",
        tlsFile("server"),
      ]);
      const client = start("tls-client", [
        ...common("tls-client"),
        "-serf-lan-port",
        String(cLan),
        "-https-port",
        String(cHttps),
        "-retry-join",
        `127.0.0.1:${sLan}`,
        // Both start at once: a first join before the server listens is retried in a second, not in 30.
        "-retry-interval",
        "1s",
        "-config-file",
        tlsFile("client"),
      ]);
      const env = (port: number, withCert = true): Record<string, string> => ({
        CONSUL_HTTP_ADDR: `https://127.0.0.1:${port}`,
        CONSUL_CACERT: join(certs, "consul-agent-ca.pem"),
        ...(withCert
          ? {
              CONSUL_CLIENT_CERT: join(certs, "dc1-cli-consul-0.pem"),
              CONSUL_CLIENT_KEY: join(certs, "dc1-cli-consul-0-key.pem"),
            }
          : {}),
      });
      // Through the client agent: its HTTPS API, then its TLS tunnel to the server.
      await waitFor(
        "a write through the client agent",
        async () => {
          for (const p of [server, client])
            if (p.child.exitCode !== null) throw new Error(`${p.name} exited: ${p.tail()}`);
          const put = await cairn(["kv", "put", "deploy/tls", "yes"], { env: env(cHttps!) });
          return put.code === 0 ? true : undefined;
        },
        // Timed from the spawns: two cold starts at once, then the join and the write.
        AGENT_START_MS + 30_000,
        250,
      );
      expect(await cairn(["kv", "get", "deploy/tls"], { env: env(sHttps!) })).toMatchObject({
        code: 0,
        stdout: "yes\n",
      });
      const members = await cairn(["members"], { env: env(cHttps!) });
      expect(members.stdout).toMatch(/tls-server\s+127\.0\.0\.1:\d+\s+alive\s+server/);
      expect(members.stdout).toMatch(/tls-client\s+127\.0\.0\.1:\d+\s+alive\s+client/);
      // verify_incoming on HTTPS: no CLI certificate, no API.
      const refused = await cairn(["kv", "get", "deploy/tls"], { env: env(cHttps!, false) });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("remote error: tls: certificate required");
    },
    AGENT_START_MS + 60_000,
  );
});

describe("docker-compose.tls.yml", () => {
  const text = readFileSync(deploy("docker-compose.tls.yml"), "utf8");
  /** `command:` lists of the services, as the compose file writes them (one double-quoted item a line). */
  const commands = new Map<string, string[]>();
  let service: string | undefined;
  let inCommand = false;
  for (const line of text.split("\n")) {
    const name = /^ {2}([\w-]+):\s*$/.exec(line);
    if (name) {
      service = name[1];
      inCommand = false;
      continue;
    }
    if (/^ {4}command:\s*$/.exec(line) && service) {
      commands.set(service, []);
      inCommand = true;
      continue;
    }
    const item = /^ {6}- ("(?:[^"\\]|\\.)*")\s*$/.exec(line);
    if (inCommand && item && service) commands.get(service)!.push(JSON.parse(item[1]!) as string);
    else if (!/^ {6}/.test(line)) inCommand = false;
  }

  // The init service's command is a shell script (a block scalar), not agent flags.
  commands.delete("cairn-tls-init");

  it("runs agents whose commands load with the TLS files the init service writes", () => {
    expect([...commands.keys()].sort()).toEqual([
      "cairn-client-1",
      "cairn-client-2",
      "cairn-server-1",
      "cairn-server-2",
      "cairn-server-3",
    ]);
    for (const [name, command] of commands) {
      const role = name.includes("server") ? "server" : "client";
      const at = command.indexOf(`/cairn/tls/tls-${role}.hcl`);
      expect(at, name).toBeGreaterThan(0);
      const local = [...command];
      local[at] = tlsFile(role);
      const { config } = loadAgentConfig(local, { HOSTNAME: "x" });
      expect(config.server).toBe(role === "server");
      expect(config.ports).toMatchObject({ http: -1, https: 8501 });
      expect(config.tls.internalRpc.verifyServerHostname).toBe(true);
    }
    expect(text).toContain("cairn tls ca create");
    expect(text).toMatch(
      /sed 's\|\/etc\/cairn\/tls\/\|\/cairn\/tls\/\|' \/cairn\/deploy-config\/tls-\$\$role\.hcl/,
    );
  });
});
