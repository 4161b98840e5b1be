// The HTTP API on a unix domain socket (`addresses.http = "unix:///path"` with `unix_sockets`), served by a
// real agent, used by the CLI through `-http-addr unix:///path` and by a plain HTTP client.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  awaitLeader,
  freePorts,
  isRunning,
  spawnAgent,
  stop,
  waitFor,
} from "../../../scripts/lib/index.js";
import { cairnInProcess } from "./helpers/cairn.js";

let dir: string;
let agent: AgentProcess;
let socket: string;

function overSocket(path: string, method = "GET", body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, path, method }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.once("error", reject);
    req.end(body);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-sock-"));
  socket = join(dir, "http.sock");
  // A socket left behind by a process that died without closing it: the agent replaces it.
  execFileSync(process.execPath, [
    "-e",
    `require("net").createServer().listen(${JSON.stringify(socket)}, () => process.exit(0))`,
  ]);
  expect(statSync(socket).isSocket()).toBe(true);
  const [http, server] = (await freePorts(2)) as [number, number];
  agent = spawnAgent({
    name: "sock",
    ports: { http, server },
    flags: [
      "-dev",
      "-node",
      "sock",
      "-hcl",
      `addresses { http = "127.0.0.1 unix://${socket}" } unix_sockets { mode = "0600" }`,
    ],
    logFile: join(dir, "sock.log"),
  });
  await awaitLeader([agent]);
}, 90_000);

afterAll(async () => {
  if (agent) await stop(agent.process);
  rmSync(dir, { recursive: true, force: true });
});

describe("HTTP API on a unix socket", () => {
  it("answers with the configured mode", async () => {
    const stat = statSync(socket);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
    const leader = await overSocket("/v1/status/leader");
    expect(leader.status).toBe(200);
    expect(JSON.parse(leader.text)).toBe(agent.rpcAddress);
    // In the log file: a -dev agent logs every request, and the line is soon out of the process's tail.
    await waitFor("the replaced socket in the agent's log", async () =>
      readFileSync(join(dir, "sock.log"), "utf8").includes("Replacing socket") ? true : undefined,
    );
  });

  it("serves the CLI through -http-addr and CONSUL_HTTP_ADDR = unix://", async () => {
    const addr = `unix://${socket}`;
    expect(await cairnInProcess(["kv", "put", "-http-addr", addr, "via/socket", "yes"])).toMatchObject({
      code: 0,
      stdout: "Success! Data written to: via/socket\n",
    });
    expect(
      await cairnInProcess(["kv", "get", "via/socket"], { env: { CONSUL_HTTP_ADDR: addr } }),
    ).toMatchObject({
      code: 0,
      stdout: "yes\n",
    });
    // The same data over TCP: one agent, two listeners.
    expect(await (await fetch(`${agent.url}/v1/kv/via/socket?raw`)).text()).toBe("yes");
    const self = JSON.parse((await overSocket("/v1/agent/self")).text) as {
      DebugConfig: { HTTPAddrs: string[] };
    };
    expect(self.DebugConfig.HTTPAddrs).toContain(`unix://${socket}`);
  });

  it("removes the socket at shutdown, and refuses to start over a file that is not a socket", async () => {
    await stop(agent.process);
    expect(existsSync(socket)).toBe(false);
    writeFileSync(socket, "precious");
    const [http, server] = (await freePorts(2)) as [number, number];
    const refused = spawnAgent({
      name: "sock2",
      ports: { http, server },
      flags: ["-dev", "-node", "sock2", "-hcl", `addresses { http = "unix://${socket}" }`],
    });
    const code = await refused.process.exited;
    expect(code).toBe(1);
    expect(refused.process.tail()).toContain(
      `cannot listen on unix://${socket}: ${socket} exists and is not a socket`,
    );
    expect(isRunning(refused.process)).toBe(false);
    await waitFor("the file to be left alone", async () => (existsSync(socket) ? true : undefined), 1000);
  }, 60_000);
});
