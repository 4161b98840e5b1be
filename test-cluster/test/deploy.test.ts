// The deploy/ files are valid: the example configs load, a server and a client agent started from them
// (addresses and ports rewritten for loopback in a copy) form a cluster, the compose file's services run
// commands the agent accepts, and the image's entry command starts a server from a built tree (skipped
// without a build).

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAgentConfig } from "@cairn/agent";
import { AGENT_NODE_FLAGS } from "@cairn/cli/node-flags";
import { afterAll, describe, expect, it } from "vitest";
import { AGENT_START_MS, agentArgv, REPO_ROOT } from "../../scripts/lib/agent.js";
import { http } from "../../scripts/lib/http.js";
import { freePorts } from "../../scripts/lib/ports.js";
import { type Spawned, signal, spawnTracked, stop } from "../../scripts/lib/processes.js";
import { waitFor } from "../../scripts/lib/wait.js";

const deploy = (path: string) => join(REPO_ROOT, "deploy", path);

/**
 * The services of a compose file written in the block style deploy/docker-compose.yml uses: each service at
 * two spaces under `services:`, its `command:` and `profiles:` block sequences of quoted strings.
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
    // A single-quoted item: no escapes but '' for a quote.
    const quoted = /^ {6}- '((?:[^']|'')*)'\s*$/.exec(line);
    if (quoted && list) {
      list.push(quoted[1]!.replaceAll("''", "'"));
      continue;
    }
    const field = /^ {4}(command|profiles):\s*$/.exec(line);
    list = field ? [] : undefined;
    if (field) current[field[1] as "command" | "profiles"] = list;
  }
  return services;
}

const SERVERS = ["cairn-server-1", "cairn-server-2", "cairn-server-3"];

describe("example configs", () => {
  it("server.hcl is a three-server server config with the standard ports", () => {
    const { config } = loadAgentConfig(["-config-file", deploy("config/server.hcl")]);
    expect(config.server).toBe(true);
    expect(config.bootstrapExpect).toBe(3);
    expect(config.retryJoin).toEqual(SERVERS);
    expect(config.ports).toMatchObject({ http: 8500, server: 8300, serfLan: 8301, serfWan: 8302 });
  });

  it("client.hcl is a client config: no server, a data dir, joins the servers, leaves on terminate", () => {
    const { config } = loadAgentConfig(["-config-file", deploy("config/client.hcl")]);
    expect(config.server).toBe(false);
    expect(config.dataDir).toBe("/cairn/data");
    expect(config.retryJoin).toEqual(SERVERS);
    expect(config.leaveOnTerminate).toBe(true);
    expect(config.ports).toMatchObject({ http: 8500, serfLan: 8301 });
  });
});

/**
 * A copy of an example config made to run on loopback: the value of each top-level `key = value` in
 * `settings`, and of each port in its `ports` block, replaced (each must be there already).
 */
function loopbackCopy(
  file: string,
  dir: string,
  settings: Record<string, string>,
  ports: Record<string, number>,
): string {
  let text = readFileSync(deploy(`config/${file}`), "utf8");
  const replace = (pattern: string, value: string) => {
    const line = new RegExp(pattern, "m");
    if (!line.test(text)) throw new Error(`${file} has no line ${pattern}`);
    text = text.replace(line, `$1${value}`);
  };
  for (const [key, value] of Object.entries(settings)) replace(`^(${key}\\s*=\\s*).*$`, value);
  for (const [key, port] of Object.entries(ports)) replace(`^(\\s+${key}\\s*=\\s*)\\d+$`, String(port));
  const path = join(dir, file);
  writeFileSync(path, text);
  return path;
}

describe("a server and a client agent started from the example configs", () => {
  const dir = mkdtempSync(join(tmpdir(), "cairn-deploy-configs-"));
  const started: Spawned[] = [];
  afterAll(async () => {
    await Promise.all(started.map((p) => stop(p, 2000)));
    rmSync(dir, { recursive: true, force: true });
  });
  const start = (name: string, config: string) => {
    const { command, args, cwd } = agentArgv({ flags: ["-config-file", config] });
    const p = spawnTracked(name, command, args, { cwd, logFile: join(dir, `${name}.log`) });
    started.push(p);
    return p;
  };
  const json = async (url: string): Promise<unknown> => JSON.parse((await http(url)).text);

  it(
    "form a cluster: the client forwards to the server, is in the catalog, and leaves on SIGTERM",
    async () => {
      const [sHttp, sRpc, sLan, sWan, cHttp, cLan] = (await freePorts(6)) as number[];
      const loopback = { bind_addr: `"127.0.0.1"`, client_addr: `"127.0.0.1"` };
      const serverFile = loopbackCopy(
        "server.hcl",
        dir,
        {
          ...loopback,
          data_dir: JSON.stringify(join(dir, "server")),
          bootstrap_expect: "1",
          retry_join: "[]",
        },
        { http: sHttp!, server: sRpc!, serf_lan: sLan!, serf_wan: sWan! },
      );
      const server = start("deploy-server", serverFile);
      const serverUrl = `http://127.0.0.1:${sHttp}`;
      await waitFor(
        "the server to elect itself",
        async () => {
          if (server.child.exitCode !== null) throw new Error(`server exited: ${server.tail()}`);
          return (await json(`${serverUrl}/v1/status/leader`).catch(() => "")) === `127.0.0.1:${sRpc}`
            ? true
            : undefined;
        },
        // Timed from the spawn: a cold start, then the election.
        AGENT_START_MS,
        200,
      );

      const clientFile = loopbackCopy(
        "client.hcl",
        dir,
        {
          ...loopback,
          data_dir: JSON.stringify(join(dir, "client")),
          retry_join: JSON.stringify([`127.0.0.1:${sLan}`]),
        },
        { http: cHttp!, serf_lan: cLan! },
      );
      const client = start("deploy-client", clientFile);
      const clientUrl = `http://127.0.0.1:${cHttp}`;
      const leader = await waitFor(
        "the client to reach the server",
        async () => {
          if (client.child.exitCode !== null) throw new Error(`client exited: ${client.tail()}`);
          const named = await json(`${clientUrl}/v1/status/leader`).catch(() => "");
          return named === "" ? undefined : named;
        },
        AGENT_START_MS,
        200,
      );
      expect(leader).toBe(`127.0.0.1:${sRpc}`);
      expect((await http(`${clientUrl}/v1/kv/deploy/through-client`, "PUT", "yes")).text).toBe("true");
      expect((await http(`${serverUrl}/v1/kv/deploy/through-client?raw`)).text).toBe("yes");
      await waitFor("the client in the catalog", async () => {
        const nodes = (await json(`${serverUrl}/v1/catalog/nodes`)) as { Node: string }[];
        return nodes.some((n) => n.Node === "cairn-client-1") ? true : undefined;
      });

      // leave_on_terminate: a graceful leave (Status 3, left), exit 0.
      signal(client, "SIGTERM");
      expect(await client.exited).toBe(0);
      await waitFor("the client to have left", async () => {
        const members = (await json(`${serverUrl}/v1/agent/members`)) as { Name: string; Status: number }[];
        return members.find((m) => m.Name === "cairn-client-1")?.Status === 3 ? true : undefined;
      });
    },
    2 * AGENT_START_MS + 30_000,
  );
});

describe("docker-compose.yml", () => {
  const text = readFileSync(deploy("docker-compose.yml"), "utf8");
  const services = composeServices(text);

  it("has three servers and two clients, all started by default", () => {
    expect([...services.keys()].sort()).toEqual([
      "cairn-client-1",
      "cairn-client-2",
      "cairn-server-1",
      "cairn-server-2",
      "cairn-server-3",
    ]);
    for (const s of services.values()) expect(s.profiles).toBeUndefined();
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

  it("runs client commands that load as client configs: a data dir, every server to join, leave on stop", () => {
    for (const i of [1, 2]) {
      const service = services.get(`cairn-client-${i}`)!;
      const { config } = loadAgentConfig(service.command!, { HOSTNAME: "x" });
      expect(config.server).toBe(false);
      expect(config.nodeName).toBe(`cairn-client-${i}`);
      expect(config.dataDir).toBe("/cairn/data");
      expect(config.retryJoin).toEqual(SERVERS);
      expect(config.leaveOnTerminate).toBe(true);
      expect(config.ports).toMatchObject({ http: 8500, serfLan: 8301 });
      expect(service.lines).toContain(`    ports: ["851${i - 1}:8500"]`);
      expect(service.lines).toContain(`    expose: ["8301"]`);
    }
  });

  it("lets servers take RPC, LAN and WAN gossip on the standard ports", () => {
    expect(text).toMatch(/^ {2}expose: \["8300", "8301", "8302"\]$/m);
    for (const i of [1, 2, 3]) {
      const { config } = loadAgentConfig(services.get(`cairn-server-${i}`)!.command!, { HOSTNAME: "x" });
      expect(config.ports).toMatchObject({ server: 8300, serfLan: 8301, serfWan: 8302 });
    }
  });

  it("checks health on /v1/status/leader and builds from deploy/Dockerfile", () => {
    expect(text).toMatch(/healthcheck:[\s\S]*\/v1\/status\/leader/);
    expect(text).toContain("dockerfile: deploy/Dockerfile");
    for (const s of services.values()) expect(s.lines.some((l) => l.includes("<<: *server"))).toBe(true);
  });
});

describe("docker-compose.federation.yml", () => {
  const text = readFileSync(deploy("docker-compose.federation.yml"), "utf8");
  const services = composeServices(text);
  const load = (name: string) => loadAgentConfig(services.get(name)!.command!, { HOSTNAME: "x" }).config;

  it("has two datacenters of three servers and a client agent each", () => {
    const expected = ["dc1", "dc2"].flatMap((dc) => [
      `${dc}-client-1`,
      ...[1, 2, 3].map((i) => `${dc}-server-${i}`),
    ]);
    expect([...services.keys()].sort()).toEqual(expected.sort());
  });

  it("joins each server to its own datacenter over the LAN and to the other's servers over the WAN", () => {
    for (const [dc, other] of [
      ["dc1", "dc2"],
      ["dc2", "dc1"],
    ] as const) {
      for (const i of [1, 2, 3]) {
        const config = load(`${dc}-server-${i}`);
        expect(config.server).toBe(true);
        expect(config.datacenter).toBe(dc);
        expect(config.bootstrapExpect).toBe(3);
        expect([...config.retryJoin].sort()).toEqual(
          [1, 2, 3].filter((j) => j !== i).map((j) => `${dc}-server-${j}`),
        );
        expect([...config.retryJoinWan]).toEqual([1, 2, 3].map((j) => `${other}-server-${j}`));
        expect(config.ports).toMatchObject({ server: 8300, serfLan: 8301, serfWan: 8302 });
      }
      const client = load(`${dc}-client-1`);
      expect(client.server).toBe(false);
      expect(client.datacenter).toBe(dc);
      expect(client.retryJoin).toEqual([1, 2, 3].map((j) => `${dc}-server-${j}`));
    }
  });

  it("names the same primary datacenter on every agent", () => {
    for (const name of services.keys()) expect(load(name).primaryDatacenter, name).toBe("dc1");
  });
});

describe("Dockerfile", () => {
  const text = readFileSync(deploy("Dockerfile"), "utf8");
  it("is multi-stage on node:20-slim, non-root, with a data volume and the agent entry point", () => {
    expect(text.match(/^FROM node:20-slim/gm)).toHaveLength(2);
    expect(text).toMatch(/^USER cairn$/m);
    expect(text).toMatch(/^VOLUME \["\/cairn\/data"\]$/m);
    const entry = ["node", ...AGENT_NODE_FLAGS, "packages/cli/dist/main.js", "agent"];
    expect(text).toContain(`\nENTRYPOINT ${JSON.stringify(entry).replaceAll(",", ", ")}\n`);
    expect(text).toMatch(/^EXPOSE 8500 8300 8301 8302$/m);
    expect(text).toContain("npm ci --omit=dev");
  });
});

const built = existsSync(join(REPO_ROOT, "packages/cli/dist/main.js"));

describe("the agent's Node flags", () => {
  const flags = AGENT_NODE_FLAGS.join(" ");
  it("are on every command line that starts an agent outside the scripts", () => {
    const unit = readFileSync(deploy("cairn.service"), "utf8");
    expect(unit).toMatch(
      new RegExp(`^ExecStart=/usr/bin/node ${flags} /opt/cairn/packages/cli/dist/main.js agent `, "m"),
    );
    const bin = readFileSync(join(REPO_ROOT, "packages/cli/bin/cairn.js"), "utf8");
    expect(bin.split("\n", 1)[0]).toBe(`#!/usr/bin/env -S node ${flags}`);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    for (const script of ["cairn", "dev"])
      expect(pkg.scripts[script], script).toMatch(new RegExp(`^node ${flags} `));
  });

  it("are on the command line of agents the scripts spawn", () => {
    const { args } = agentArgv({ built: true });
    expect(args.slice(0, AGENT_NODE_FLAGS.length)).toEqual(AGENT_NODE_FLAGS);
  });
});

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
        ...AGENT_NODE_FLAGS,
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
