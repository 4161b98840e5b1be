// The agent commands (services, maint, catalog, reload, monitor, operator autopilot) against a real
// `cairn agent -dev` process.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../../scripts/lib/wait.js";
import { runCli } from "../src/cli.js";
import { cairnArgv, cairnInProcess } from "./helpers/cairn.js";

const dir = mkdtempSync(join(tmpdir(), "cairn-cli-agent-"));
const configFile = join(dir, "agent.json");
let agent: ChildProcess;
let env: Record<string, string>;
let url: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as import("node:net").AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  const port = await freePort();
  writeFileSync(configFile, JSON.stringify({ services: [{ name: "from-config", port: 1 }] }));
  agent = spawn(
    process.execPath,
    cairnArgv(["agent", "-dev", "-http-port", String(port), "-config-file", configFile]),
    { stdio: "ignore", env: { PATH: process.env.PATH ?? "", HOSTNAME: "cli-node" } },
  );
  url = `http://127.0.0.1:${port}`;
  env = { CAIRN_HTTP_ADDR: `127.0.0.1:${port}` };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/v1/catalog/service/from-config`);
      if (res.ok && ((await res.json()) as unknown[]).length > 0) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error("agent did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  if (agent.exitCode === null) {
    const exited = new Promise((r) => agent.once("exit", r));
    agent.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => cairnInProcess(args, { env });

describe("cairn services", () => {
  it("registers from flags (repeated -tag and -meta) and deregisters by -id", async () => {
    const reg = await run(
      "services",
      "register",
      "-name=web",
      "-id=web/1",
      "-port=8080",
      "-tag=v1",
      "-tag=primary",
      "-meta=env=prod",
    );
    expect(reg).toMatchObject({ code: 0, stdout: "Registered service: web\n" });
    const services = (await (await fetch(`${url}/v1/agent/services`)).json()) as Record<
      string,
      { Tags: string[]; Meta: unknown; Port: number }
    >;
    expect(services["web/1"]).toMatchObject({ Tags: ["v1", "primary"], Meta: { env: "prod" }, Port: 8080 });
    expect(await run("services", "deregister", "-id=web/1")).toMatchObject({
      code: 0,
      stdout: "Deregistered service: web/1\n",
    });
    const missing = await run("services", "deregister", "-id=web/1");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Unknown service ID");
  });

  it("registers and deregisters from an HCL definition file", async () => {
    const file = join(dir, "db.hcl");
    writeFileSync(
      file,
      'service {\n  name = "db"\n  port = 5432\n  tags = ["primary"]\n  check {\n    ttl = "30s"\n  }\n}\n',
    );
    expect(await run("services", "register", file)).toMatchObject({
      code: 0,
      stdout: "Registered service: db\n",
    });
    const checks = (await (await fetch(`${url}/v1/agent/checks`)).json()) as Record<string, unknown>;
    expect(Object.keys(checks)).toContain("service:db");
    expect(await run("services", "deregister", file)).toMatchObject({
      code: 0,
      stdout: "Deregistered service: db\n",
    });
    const bad = await run("services", "register");
    expect(bad.code).toBe(1);
  });
});

describe("cairn catalog", () => {
  it("lists datacenters, nodes and services as consul prints them", async () => {
    await run("services", "register", "-name=api", "-tag=b", "-tag=a");
    expect(await run("catalog", "datacenters")).toMatchObject({ code: 0, stdout: "dc1\n" });
    const nodes = await run("catalog", "nodes");
    expect(nodes.code).toBe(0);
    expect(nodes.stdout).toMatch(/^Node\s+ID\s+Address\s+DC\ncli-node\s+[0-9a-f]{8}\s+127\.0\.0\.1\s+dc1\n$/);
    const detailed = await run("catalog", "nodes", "-detailed");
    expect(detailed.stdout).toMatch(/TaggedAddresses\s+Meta\n/);
    expect(detailed.stdout).toContain("lan=127.0.0.1");
    expect((await run("catalog", "nodes", "-service=api")).stdout).toContain("cli-node");
    const none = await run("catalog", "nodes", "-node-meta=rack=r9");
    expect(none).toMatchObject({ code: 0, stdout: "" });
    expect(none.stderr).toContain("No nodes match");
    const services = await run("catalog", "services");
    expect(services.stdout).toBe("api\nconsul\nfrom-config\n");
    const tags = await run("catalog", "services", "-tags");
    expect(tags.stdout).toMatch(/^api\s+a,b\n/);
    expect((await run("catalog", "services", "-node=cli-node")).stdout).toContain("api\n");
    await run("services", "deregister", "-id=api");
  });
});

describe("cairn maint", () => {
  it("enables, shows and disables node and service maintenance", async () => {
    await run("services", "register", "-name=cache");
    expect(await run("maint", "-enable", "-reason=upgrading")).toMatchObject({
      code: 0,
      stdout: "Node maintenance is now enabled\n",
    });
    expect(await run("maint", "-enable", "-service=cache")).toMatchObject({
      code: 0,
      stdout: 'Service maintenance is now enabled for "cache"\n',
    });
    const shown = await run("maint");
    expect(shown.stdout).toContain("Node:\n  Name:   cli-node\n  Reason: upgrading\n");
    expect(shown.stdout).toContain("Service:\n  ID:     cache\n");
    expect((await run("maint", "-disable")).stdout).toBe("Node maintenance is now disabled\n");
    expect((await run("maint", "-disable", "-service=cache")).code).toBe(0);
    expect((await run("maint")).stdout).toBe("");
    expect((await run("maint", "-enable", "-disable")).code).toBe(1);
    expect((await run("maint", "-service=cache")).code).toBe(1);
  });
});

describe("cairn reload and monitor", () => {
  it("reload re-reads the agent's configuration files", async () => {
    writeFileSync(configFile, JSON.stringify({ services: [{ name: "after-reload", port: 2 }] }));
    expect(await run("reload")).toMatchObject({ code: 0, stdout: "Configuration reload triggered\n" });
    const services = (await (await fetch(`${url}/v1/agent/services`)).json()) as Record<string, unknown>;
    expect(Object.keys(services)).toContain("after-reload");
    expect(Object.keys(services)).not.toContain("from-config");
  });

  it("monitor streams log lines until stopped", async () => {
    const lines: string[] = [];
    const done = runCli(["monitor", "-log-level=info"], {
      out: (t) => lines.push(String(t)),
      err: (t) => lines.push(`ERR ${t}`),
      readStdin: async () => Buffer.alloc(0),
      env,
    });
    // The monitor shows only lines logged after it attached, and nothing tells when it has: toggle
    // maintenance until a toggle shows up in the stream.
    await waitFor(
      "the monitor to stream a maintenance toggle",
      async () => {
        await run("maint", "-enable");
        await run("maint", "-disable");
        const seen = (text: string) => lines.some((l) => l.includes(text));
        return seen("Node entered maintenance mode") && seen("Node left maintenance mode") ? true : undefined;
      },
      15_000,
      200,
    );
    expect(lines.some((l) => /\[WARN\]\s+agent\.agent: Node entered maintenance mode/.test(l))).toBe(true);
    process.emit("SIGINT");
    expect(await done).toBe(0);
  });
});

describe("cairn operator autopilot", () => {
  it("prints the configuration, changes given fields with check-and-set, and shows the state", async () => {
    const before = await run("operator", "autopilot", "get-config");
    expect(before.code).toBe(0);
    expect(before.stdout).toContain("CleanupDeadServers = true\n");
    expect(before.stdout).toContain("MaxTrailingLogs = 250\n");
    expect(before.stdout).toContain('RedundancyZoneTag = ""\n');

    const set = await run(
      "operator",
      "autopilot",
      "set-config",
      "-cleanup-dead-servers=false",
      "-max-trailing-logs=100",
      "-server-stabilization-time=5s",
    );
    expect(set).toMatchObject({ code: 0, stdout: "Configuration updated!\n" });
    const after = await run("operator", "autopilot", "get-config");
    expect(after.stdout).toContain("CleanupDeadServers = false\n");
    expect(after.stdout).toContain("MaxTrailingLogs = 100\n");
    expect(after.stdout).toContain("ServerStabilizationTime = 5s\n");
    expect(after.stdout).toContain("LastContactThreshold = 200ms\n");

    const bad = await run("operator", "autopilot", "set-config", "-min-quorum=two");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("-min-quorum: expected a whole number");

    const state = await run("operator", "autopilot", "state");
    expect(state.code).toBe(0);
    expect(state.stdout).toMatch(/^Healthy: +true$/m);
    const json = await run("operator", "autopilot", "state", "-format=json");
    expect(JSON.parse(json.stdout)).toMatchObject({ Healthy: true });
  });
});
