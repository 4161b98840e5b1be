// Docker checks against a Docker Engine API server on a unix socket started here. No Docker engine can run
// on this machine, so this is a real HTTP server speaking the engine's exec endpoints (create, start,
// inspect) that runs each exec's command as a local process: the agent's client is exercised as it is.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestAgent, type TestAgent } from "./harness.js";

interface Exec {
  container: string;
  cmd: string[];
  exitCode?: number;
}

/** What the fake engine was asked, for the assertions. */
interface EngineLog {
  creates: { container: string; body: Record<string, unknown> }[];
  starts: Record<string, unknown>[];
}

const CONTAINER = "f972c95ebf0e";

function startEngine(socketPath: string): Promise<{ server: http.Server; log: EngineLog }> {
  const execs = new Map<string, Exec>();
  const log: EngineLog = { creates: [], starts: [] };
  let next = 0;
  const reply = (res: http.ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = chunks.length
        ? (JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>)
        : {};
      const url = new URL(req.url ?? "/", "http://docker");
      let m = /^\/containers\/([^/]+)\/exec$/.exec(url.pathname);
      if (req.method === "POST" && m) {
        const container = decodeURIComponent(m[1] ?? "");
        log.creates.push({ container, body });
        if (container === "paused") return reply(res, 409, { message: "container is paused" });
        if (container !== CONTAINER) return reply(res, 404, { message: `No such container: ${container}` });
        const id = `exec${++next}`;
        execs.set(id, { container, cmd: body.Cmd as string[] });
        return reply(res, 201, { Id: id });
      }
      m = /^\/exec\/([^/]+)\/start$/.exec(url.pathname);
      if (req.method === "POST" && m) {
        log.starts.push(body);
        const exec = execs.get(m[1] ?? "");
        if (!exec) return reply(res, 404, { message: "No such exec instance" });
        const [command = "", ...args] = exec.cmd;
        const run = spawnSync(command, args, { encoding: "buffer" });
        exec.exitCode = run.status ?? 255;
        // Tty was asked for on start: the output comes as it is, not multiplexed.
        res.writeHead(200, { "Content-Type": "application/vnd.docker.raw-stream" });
        return res.end(Buffer.concat([run.stdout, run.stderr]));
      }
      m = /^\/exec\/([^/]+)\/json$/.exec(url.pathname);
      if (req.method === "GET" && m) {
        const exec = execs.get(m[1] ?? "");
        if (!exec) return reply(res, 404, { message: "No such exec instance" });
        return reply(res, 200, { ID: m[1], Running: false, ExitCode: exec.exitCode ?? 0 });
      }
      reply(res, 404, { message: "page not found" });
    });
  });
  return new Promise((resolve) => server.listen(socketPath, () => resolve({ server, log })));
}

let dir: string;
let agent: TestAgent;
let engine: { server: http.Server; log: EngineLog };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-docker-"));
  const socket = join(dir, "docker.sock");
  engine = await startEngine(socket);
  agent = await startTestAgent({ enableScriptChecks: true, dockerHost: `unix://${socket}` });
});
afterAll(async () => {
  await agent.close();
  await new Promise<void>((resolve) => engine.server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

type Checks = Record<string, { Status: string; Output: string; Type: string }>;

async function waitFor(a: TestAgent, id: string, status: string) {
  await eventually(
    async () => (await a.json<Checks>("/v1/agent/checks"))[id]?.Status === status,
    10_000,
    `${id} ${status}`,
  );
  return (await a.json<Checks>("/v1/agent/checks"))[id];
}

describe("Docker checks through the Docker Engine API", () => {
  it("runs Args in the container: exit 0 passing, 1 warning, other critical, with the output", async () => {
    for (const [name, code] of [
      ["docker-ok", 0],
      ["docker-warn", 1],
      ["docker-fail", 2],
    ] as const) {
      const res = await agent.req("PUT", "/v1/agent/check/register", {
        Name: name,
        DockerContainerID: CONTAINER,
        Shell: "/bin/sh",
        Args: ["/bin/sh", "-c", `echo ${name} says hi; exit ${code}`],
        Interval: "50ms",
        Status: code === 2 ? "passing" : "critical",
      });
      expect(res.status).toBe(200);
    }
    expect(await waitFor(agent, "docker-ok", "passing")).toMatchObject({
      Type: "docker",
      Output: "docker-ok says hi\n",
    });
    expect((await waitFor(agent, "docker-warn", "warning"))?.Output).toBe("docker-warn says hi\n");
    expect((await waitFor(agent, "docker-fail", "critical"))?.Output).toBe("docker-fail says hi\n");
    const create = engine.log.creates.find((c) => JSON.stringify(c.body.Cmd).includes("docker-ok"));
    expect(create?.body).toMatchObject({
      AttachStdout: true,
      AttachStderr: true,
      Cmd: ["/bin/sh", "-c", "echo docker-ok says hi; exit 0"],
    });
    expect(engine.log.starts[0]).toEqual({ Detach: false, Tty: true });
    for (const id of ["docker-ok", "docker-warn", "docker-fail"]) {
      await agent.req("PUT", `/v1/agent/check/deregister/${id}`);
    }
  });

  it("is critical with the engine's reason for an unknown or paused container", async () => {
    await agent.req("PUT", "/v1/agent/check/register", {
      Name: "docker-missing",
      DockerContainerID: "nope",
      Args: ["/bin/true"],
      Interval: "50ms",
      Status: "passing",
    });
    await agent.req("PUT", "/v1/agent/check/register", {
      Name: "docker-paused",
      DockerContainerID: "paused",
      Args: ["/bin/true"],
      Interval: "50ms",
      Status: "passing",
    });
    expect((await waitFor(agent, "docker-missing", "critical"))?.Output).toBe(
      "create exec failed for unknown container nope",
    );
    expect((await waitFor(agent, "docker-paused", "critical"))?.Output).toBe(
      "create exec failed since container paused is paused or stopped",
    );
    for (const id of ["docker-missing", "docker-paused"]) {
      await agent.req("PUT", `/v1/agent/check/deregister/${id}`);
    }
  });

  it("keeps the last OutputMaxSize bytes of a long output, saying so", async () => {
    await agent.req("PUT", "/v1/agent/check/register", {
      Name: "docker-long",
      DockerContainerID: CONTAINER,
      Args: ["/bin/sh", "-c", "printf 'aaaaaaaaaabbbbb'"],
      OutputMaxSize: 5,
      Interval: "50ms",
    });
    expect((await waitFor(agent, "docker-long", "passing"))?.Output).toBe(
      "Captured 5 of 15 bytes\n...\nbbbbb",
    );
    await agent.req("PUT", "/v1/agent/check/deregister/docker-long");
  });

  it("success_before_passing: after a failure, passing only once that many runs in a row succeeded", async () => {
    const flag = join(dir, "healthy");
    await agent.req("PUT", "/v1/agent/check/register", {
      Name: "docker-gated",
      DockerContainerID: CONTAINER,
      Args: ["/bin/sh", "-c", `test -e ${flag} || exit 2`],
      Interval: "50ms",
      Status: "passing",
      success_before_passing: 3,
    });
    // The first (failed) run applies at once: Consul's counters start at their thresholds.
    await waitFor(agent, "docker-gated", "critical");
    const startsBefore = engine.log.starts.length;
    writeFileSync(flag, "");
    await waitFor(agent, "docker-gated", "passing");
    expect(engine.log.starts.length - startsBefore).toBeGreaterThanOrEqual(3);
    await agent.req("PUT", "/v1/agent/check/deregister/docker-gated");
  });

  it("is refused unless script checks are enabled, as Consul refuses it", async () => {
    const strict = await startTestAgent({ dockerHost: "unix:///nonexistent/docker.sock" });
    try {
      const res = await strict.req("PUT", "/v1/agent/check/register", {
        Name: "docker",
        DockerContainerID: CONTAINER,
        Args: ["/bin/true"],
        Interval: "1s",
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/^Scripts are disabled/);
    } finally {
      await strict.close();
    }
  });

  it("is critical, saying why, when no engine answers on the socket", async () => {
    const socket = join(dir, "absent.sock");
    const lonely = await startTestAgent({ enableScriptChecks: true, dockerHost: `unix://${socket}` });
    try {
      await lonely.req("PUT", "/v1/agent/check/register", {
        Name: "docker-no-engine",
        DockerContainerID: CONTAINER,
        Args: ["/bin/true"],
        Interval: "50ms",
        Status: "passing",
      });
      expect((await waitFor(lonely, "docker-no-engine", "critical"))?.Output).toBe(
        `create exec failed for container ${CONTAINER}: dial unix ${socket}: connect: no such file or directory`,
      );
    } finally {
      await lonely.close();
    }
  });
});
