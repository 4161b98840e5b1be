// `cairn agent -dev`: one in-memory server a new user can use at once, and a clean exit on SIGTERM.
import { existsSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  freePorts,
  http,
  killProcess,
  removeDir,
  spawnAgent,
  tempRoot,
  waitFor,
} from "./harness.js";

const root = tempRoot();
let agent: AgentProcess | undefined;

afterAll(async () => {
  if (agent) {
    killProcess(agent, "SIGKILL");
    await agent.exited;
  }
  removeDir(root);
});

describe("cairn agent -dev", () => {
  it("elects itself, answers status and a KV round trip, survives SIGHUP, and exits 0 on SIGTERM", async () => {
    const [httpPort, serverPort] = await freePorts(2);
    const pidFile = `${root}/agent.pid`;
    agent = spawnAgent("dev", { http: httpPort!, server: serverPort!, serfLan: -1 }, `${root}/dev`, [
      "-dev",
      "-http-port",
      String(httpPort),
      "-server-port",
      String(serverPort),
      "-pid-file",
      pidFile,
    ]);
    const leader = await waitFor(
      "the dev server to lead",
      async () => {
        const r = await http(`${agent!.url}/v1/status/leader`);
        const address = JSON.parse(r.text) as string;
        return address !== "" ? address : undefined;
      },
      20_000,
    );
    expect(leader).toBe(`127.0.0.1:${serverPort}`);
    expect((await http(`${agent.url}/v1/kv/hello`, "PUT", "world")).text).toBe("true");
    const raw = await http(`${agent.url}/v1/kv/hello?raw`);
    expect(raw.text).toBe("world");
    expect(Number(raw.headers.get("X-Consul-Index"))).toBeGreaterThan(0);
    // The agent registered itself, so a session can be created straight away.
    const session = await waitFor(
      "a session",
      async () => {
        const r = await http(`${agent!.url}/v1/session/create`, "PUT", "{}");
        return r.status === 200 ? r.text : undefined;
      },
      5_000,
    );
    expect(session).toMatch(/"ID"/);
    expect(existsSync(pidFile)).toBe(true);

    // SIGHUP (Consul's reload) does not stop the agent.
    killProcess(agent, "SIGHUP");
    await new Promise((ok) => setTimeout(ok, 300));
    expect((await http(`${agent.url}/v1/kv/hello?raw`)).text).toBe("world");

    killProcess(agent, "SIGTERM");
    expect(await agent.exited).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
  }, 30_000);
});
