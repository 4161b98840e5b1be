// The deploy/ files are valid: the example configs load, the compose file's services run commands the agent
// accepts, and the image's entry command starts a server from a built tree (skipped without a build).

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAgentConfig } from "@cairn/agent";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/agent.js";
import { freePorts } from "../../scripts/lib/ports.js";
import { spawnTracked, stop } from "../../scripts/lib/processes.js";
import { waitFor } from "../../scripts/lib/wait.js";

const deploy = (path: string) => join(REPO_ROOT, "deploy", path);

/**
 * The services of a compose file written in the block style deploy/docker-compose.yml uses: each service at
 * two spaces under `services:`, its `command:` and `profiles:` block sequences of double-quoted strings.
 * Enough to check names and commands without a YAML library.
 */
interface ComposeService {
  command?: string[];
  profiles?: string[];
  lines: string[];
}

function composeServices(text: string): Map<string, ComposeService> {
  const services = new Map<string, ComposeService>();
  let inServices = false;
  let current: ComposeService | undefined;
  let list: string[] | undefined;
  for (const line of text.split("\n")) {
    if (/^\S/.test(line) && !line.startsWith("#")) {
      inServices = line.startsWith("services:");
      current = undefined;
      continue;
    }
    if (!inServices) continue;
    const service = /^ {2}([\w-]+):\s*$/.exec(line);
    if (service) {
      current = { lines: [] };
      services.set(service[1]!, current);
      continue;
    }
    if (!current) continue;
    current.lines.push(line);
    const item = /^ {6}- ("(?:[^"\\]|\\.)*")\s*$/.exec(line);
    if (item && list) {
      list.push(JSON.parse(item[1]!) as string);
      continue;
    }
    const field = /^ {4}(command|profiles):\s*$/.exec(line);
    list = field ? [] : undefined;
    if (field) current[field[1] as "command" | "profiles"] = list;
  }
  return services;
}

describe("example configs", () => {
  it("server.hcl is a three-server server config", () => {
    const { config } = loadAgentConfig(["-config-file", deploy("config/server.hcl")]);
    expect(config.server).toBe(true);
    expect(config.bootstrapExpect).toBe(3);
    expect(config.retryJoin).toEqual(["cairn-server-1", "cairn-server-2", "cairn-server-3"]);
    expect(config.ports.http).toBe(8500);
  });

  it("client.hcl is a client config", () => {
    const { config } = loadAgentConfig(["-config-file", deploy("config/client.hcl")]);
    expect(config.server).toBe(false);
    expect(config.retryJoin).toHaveLength(3);
  });
});

describe("docker-compose.yml", () => {
  const text = readFileSync(deploy("docker-compose.yml"), "utf8");
  const services = composeServices(text);

  it("has three servers and two clients (clients behind a profile until client mode lands)", () => {
    expect([...services.keys()].sort()).toEqual([
      "cairn-client-1",
      "cairn-client-2",
      "cairn-server-1",
      "cairn-server-2",
      "cairn-server-3",
    ]);
    for (const name of ["cairn-client-1", "cairn-client-2"])
      expect(services.get(name)!.profiles).toEqual(["clients"]);
  });

  it("runs server commands the agent accepts, each joining the other two", () => {
    for (const i of [1, 2, 3]) {
      const command = services.get(`cairn-server-${i}`)!.command!;
      const { config } = loadAgentConfig(command, { HOSTNAME: "x" });
      expect(config.server).toBe(true);
      expect(config.bootstrapExpect).toBe(3);
      expect(config.nodeName).toBe(`cairn-server-${i}`);
      expect(config.dataDir).toBe("/cairn/data");
      expect([...config.retryJoin].sort()).toEqual(
        [1, 2, 3].filter((j) => j !== i).map((j) => `cairn-server-${j}`),
      );
    }
  });

  it("runs client commands that load as client configs", () => {
    for (const i of [1, 2]) {
      const { config } = loadAgentConfig(services.get(`cairn-client-${i}`)!.command!, { HOSTNAME: "x" });
      expect(config.server).toBe(false);
    }
  });

  it("checks health on /v1/status/leader and builds from deploy/Dockerfile", () => {
    expect(text).toMatch(/healthcheck:[\s\S]*\/v1\/status\/leader/);
    expect(text).toContain("dockerfile: deploy/Dockerfile");
    for (const s of services.values()) expect(s.lines.some((l) => l.includes("<<: *server"))).toBe(true);
  });
});

describe("Dockerfile", () => {
  const text = readFileSync(deploy("Dockerfile"), "utf8");
  it("is multi-stage on node:20-slim, non-root, with a data volume and the agent entry point", () => {
    expect(text.match(/^FROM node:20-slim/gm)).toHaveLength(2);
    expect(text).toMatch(/^USER cairn$/m);
    expect(text).toMatch(/^VOLUME \["\/cairn\/data"\]$/m);
    expect(text).toMatch(/^ENTRYPOINT \["node", "packages\/cli\/dist\/main.js", "agent"\]$/m);
    expect(text).toContain("npm ci --omit=dev");
  });
});

const built = existsSync(join(REPO_ROOT, "packages/cli/dist/main.js"));

describe.skipIf(!built)("the image's entry command against the built tree", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cairn-deploy-test-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("starts a server from server.hcl that elects itself and serves /v1/status/leader", async () => {
    const [http, server, serf] = await freePorts(3);
    // server.hcl as shipped, made a one-server cluster on loopback ports by flags (flags override files).
    const agent = spawnTracked(
      "deploy-entry",
      process.execPath,
      [
        "packages/cli/dist/main.js",
        "agent",
        "-config-file",
        deploy("config/server.hcl"),
        "-bootstrap-expect",
        "1",
        "-node",
        "deploy-test",
        "-data-dir",
        dataDir,
        "-bind",
        "127.0.0.1",
        "-client",
        "127.0.0.1",
        "-http-port",
        String(http),
        "-server-port",
        String(server),
        "-serf-lan-port",
        String(serf),
      ],
      { cwd: REPO_ROOT },
    );
    try {
      const leader = await waitFor(
        "the built agent to elect itself",
        async () => {
          if (agent.child.exitCode !== null) throw new Error(`agent exited: ${agent.tail()}`);
          const res = await fetch(`http://127.0.0.1:${http}/v1/status/leader`);
          const body: unknown = await res.json();
          return typeof body === "string" && body !== "" ? body : undefined;
        },
        30_000,
        200,
      );
      expect(leader).toBe(`127.0.0.1:${server}`);
    } finally {
      await stop(agent);
    }
  }, 45_000);
});
