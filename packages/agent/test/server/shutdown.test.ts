// Prompt shutdown: a server and a client agent, each holding blocking queries of every kind (index-based
// through the state store, hash-based on the agent, the event list, a monitor stream), exit within seconds
// of SIGTERM/SIGINT instead of when the queries' wait runs out, and every held request is settled.
import { afterAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  AgentScratch,
  awaitLeader,
  clientFlags,
  freePorts,
  http,
  serverFlags,
  signal,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
afterAll(() => scratch.dispose());

/** Far longer than any bound below: an agent still waiting on these would fail the test plainly. */
const WAIT = "5m";
/** Generous for a loaded test machine; the agent itself takes well under a second. */
const EXIT_WITHIN_MS = 8_000;

async function startServer(): Promise<AgentProcess> {
  const [http_, server, serfLan] = (await freePorts(3)) as [number, number, number];
  const agent = scratch.spawn({
    name: "s1",
    ports: { http: http_, server, serfLan },
    flags: serverFlags({ name: "s1", dataDir: scratch.path("s1"), bootstrapExpect: 1, raftMultiplier: 1 }),
    logFile: scratch.path("s1.log"),
  });
  await awaitLeader([agent]);
  return agent;
}

async function startClient(serverLan: string): Promise<AgentProcess> {
  const [http_, server, serfLan] = (await freePorts(3)) as [number, number, number];
  const agent = scratch.spawn({
    name: "c1",
    ports: { http: http_, server, serfLan },
    flags: clientFlags({ name: "c1", dataDir: scratch.path("c1"), join: [serverLan] }),
    logFile: scratch.path("c1.log"),
  });
  await waitFor(
    "the client to reach the catalog",
    async () => ((await http(`${agent.url}/v1/catalog/nodes`)).status === 200 ? true : undefined),
    30_000,
  );
  return agent;
}

/** Starts blocking queries that would each be held for WAIT; resolves once all are parked at the agent. */
async function holdQueries(agent: AgentProcess): Promise<Promise<string>[]> {
  const base = `${agent.url}/v1`;
  const put = await http(`${base}/kv/held`, "PUT", "x");
  expect(put.status).toBe(200);
  const kv = await http(`${base}/kv/held`);
  const index = kv.headers.get("x-consul-index");
  const reg = await http(
    `${base}/agent/service/register`,
    "PUT",
    JSON.stringify({ Name: "web", ID: "web1" }),
  );
  expect(reg.status).toBe(200);
  const svc = await http(`${base}/agent/service/web1`);
  const hash = svc.headers.get("x-consul-contenthash");
  expect(index && hash).toBeTruthy();
  const events = await http(`${base}/event/list`);
  const urls = [
    `${base}/kv/held?index=${index}&wait=${WAIT}`,
    `${base}/agent/service/web1?hash=${hash}&wait=${WAIT}`,
    `${base}/event/list?index=${events.headers.get("x-consul-index") ?? "1"}&wait=${WAIT}`,
    `${base}/agent/monitor?loglevel=error`,
  ];
  const held = urls.map(async (url) => {
    try {
      const r = await http(url, "GET", undefined, { timeoutMs: 10 * 60_000 });
      return `answered ${r.status}`;
    } catch {
      return "closed";
    }
  });
  // Nothing is due for minutes: settling now would mean the agent did not hold them.
  const early = await Promise.race([
    Promise.race(held),
    new Promise<undefined>((r) => setTimeout(() => r(undefined), 1500)),
  ]);
  expect(early).toBeUndefined();
  return held;
}

async function timeToExit(agent: AgentProcess, sig: NodeJS.Signals): Promise<number> {
  const start = performance.now();
  expect(signal(agent.process, sig)).toBe(true);
  const exited = await Promise.race([
    agent.process.exited,
    new Promise<"late">((r) => setTimeout(() => r("late"), 60_000)),
  ]);
  expect(exited, agent.process.tail()).toBe(0);
  return performance.now() - start;
}

describe("shutdown with blocking queries held", () => {
  it("a server exits promptly on SIGTERM and settles every held request; so does a client on SIGINT after its leave", async () => {
    const server = await startServer();
    const serverLan = `127.0.0.1:${server.options.ports.serfLan}`;
    const client = await startClient(serverLan);

    // The client first: it leaves gracefully on SIGINT (Consul's default for clients), then exits.
    const clientHeld = await holdQueries(client);
    const clientMs = await timeToExit(client, "SIGINT");
    expect(clientMs).toBeLessThan(EXIT_WITHIN_MS);
    expect(await Promise.all(clientHeld)).toHaveLength(4);
    expect(client.process.tail()).toMatch(/leav/i);

    const serverHeld = await holdQueries(server);
    const serverMs = await timeToExit(server, "SIGTERM");
    expect(serverMs).toBeLessThan(EXIT_WITHIN_MS);
    expect(await Promise.all(serverHeld)).toHaveLength(4);
  }, 120_000);
});
