// `cairn agent -dev`: one in-memory server a new user can use at once, and a clean exit on SIGTERM.
import { existsSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentProcess,
  AgentScratch,
  awaitHttp,
  freePorts,
  http,
  leaderAddress,
  signal,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
let agent: AgentProcess | undefined;

afterAll(() => scratch.dispose());

describe("cairn agent -dev", () => {
  it("elects itself, answers status and a KV round trip, survives SIGHUP, and exits 0 on SIGTERM", {
    timeout: AGENT_START_MS + 30_000,
  }, async () => {
    const [httpPort, serverPort] = await freePorts(2);
    const pidFile = scratch.path("agent.pid");
    agent = scratch.spawn({
      name: "dev",
      ports: { http: httpPort!, server: serverPort! },
      flags: ["-dev", "-pid-file", pidFile],
      logFile: scratch.path("dev.log"),
    });
    await awaitHttp(agent);
    const leader = await waitFor(
      "the dev server to lead",
      async () => (await leaderAddress(agent!.url)) || undefined,
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
    signal(agent.process, "SIGHUP");
    const running = agent;
    await waitFor(
      "the agent to report its reload",
      async () => (running.process.tail().includes("configuration reloaded (SIGHUP)") ? true : undefined),
      10_000,
    );
    expect((await http(`${agent.url}/v1/kv/hello?raw`)).text).toBe("world");

    signal(agent.process, "SIGTERM");
    expect(await agent.process.exited).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
  });
});
