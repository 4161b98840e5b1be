// Failure handling through gossip with real processes: three servers and a client agent on loopback. A client
// killed with SIGKILL is detected by gossip, the leader marks its serfHealth critical, which invalidates its
// session and releases the lock it held; a killed server is replaced by a new one that joins through gossip
// and autopilot removes the dead one from Raft.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentPorts,
  type AgentProcess,
  AgentScratch,
  awaitHttp,
  awaitLeader,
  clientFlags,
  freePorts,
  http,
  isRunning,
  kill,
  serverFlags,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
const AUTOPILOT = 'autopilot { server_stabilization_time = "1s"  dead_server_cleanup_threshold = "2s" }';

interface Check {
  CheckID: string;
  Status: string;
}

function startServer(name: string, ports: AgentPorts, join: string[]): AgentProcess {
  return scratch.spawn({
    name,
    ports,
    flags: [
      ...serverFlags({ name, dataDir: scratch.path(name), join, bootstrapExpect: 3, raftMultiplier: 1 }),
      "-hcl",
      AUTOPILOT,
    ],
    logFile: scratch.path(`${name}.log`),
  });
}

const servers: AgentProcess[] = [];
let client: AgentProcess;
const portSets: AgentPorts[] = [];

const live = () => servers.filter((s) => isRunning(s.process));

async function serfHealth(node: string): Promise<string | undefined> {
  const leader = await awaitLeader(live(), 20_000);
  const r = await http(`${leader.url}/v1/health/node/${node}`);
  if (r.status !== 200) return undefined;
  return (JSON.parse(r.text) as Check[]).find((c) => c.CheckID === "serfHealth")?.Status;
}

beforeAll(async () => {
  const all = await freePorts(15);
  for (let i = 0; i < 5; i++)
    portSets.push({ http: all[i * 3]!, server: all[i * 3 + 1]!, serfLan: all[i * 3 + 2]! });
  const lan = (i: number) => `127.0.0.1:${portSets[i]!.serfLan}`;
  // Only one retry_join target each: the rest is learned through gossip.
  for (let i = 0; i < 3; i++) servers.push(startServer(`s${i + 1}`, portSets[i]!, [lan((i + 1) % 3)]));
  // The election is timed from when they serve HTTP: a cold start has its own, longer, deadline.
  await Promise.all(servers.map((s) => awaitHttp(s)));
  await awaitLeader(servers, 30_000);
  // Started once the servers listen: a first retry_join that finds nobody waits out retry_interval (30 s).
  client = scratch.spawn({
    name: "c1",
    ports: portSets[3]!,
    flags: clientFlags({ name: "c1", dataDir: scratch.path("c1"), join: [lan(0)] }),
    logFile: scratch.path("c1.log"),
  });
}, AGENT_START_MS + 40_000);

afterAll(() => scratch.dispose());

describe("gossip failure handling across real processes", () => {
  let sessionId = "";

  it(
    "lists every agent as an alive member and registers the client with a passing serfHealth",
    async () => {
      await awaitHttp(client);
      await waitFor(
        "four alive members seen by the client",
        async () => {
          const r = await http(`${client.url}/v1/agent/members`);
          const members = JSON.parse(r.text) as {
            Name: string;
            Status: number;
            Tags: Record<string, string>;
          }[];
          return members.filter((m) => m.Status === 1).length === 4 ? members : undefined;
        },
        30_000,
      );
      expect(
        await waitFor(
          "c1 serfHealth passing",
          async () => ((await serfHealth("c1")) === "passing" ? true : undefined),
          30_000,
        ),
      ).toBe(true);
    },
    AGENT_START_MS + 60_000,
  );

  it("serves the whole API on the client by forwarding to a server", async () => {
    const put = await http(`${client.url}/v1/kv/through-client`, "PUT", "hello");
    expect(put.text.trim()).toBe("true");
    const leader = await awaitLeader(live());
    const got = await http(`${leader.url}/v1/kv/through-client?raw`);
    expect(got.text).toBe("hello");
  });

  it("a user event fired on a server reaches the client, which lists it", async () => {
    const fired = await http(`${servers[1]!.url}/v1/event/fire/deploy?node=c`, "PUT", "v2");
    expect(fired.status).toBe(200);
    const { ID } = JSON.parse(fired.text) as { ID: string };
    const listed = await waitFor("the event on the client", async () => {
      const r = await http(`${client.url}/v1/event/list?name=deploy`);
      const events = JSON.parse(r.text) as { ID: string; Payload: string }[];
      return events.find((e) => e.ID === ID);
    });
    expect(Buffer.from(listed.Payload, "base64").toString()).toBe("v2");
    // The node filter keeps it off the servers (names s1..s3).
    const onServer = await http(`${servers[0]!.url}/v1/event/list?name=deploy`);
    expect(JSON.parse(onServer.text)).toEqual([]);
  });

  it("a session on the client node holds a lock", async () => {
    const r = await http(`${client.url}/v1/session/create`, "PUT", JSON.stringify({ LockDelay: "1s" }));
    expect(r.status).toBe(200);
    sessionId = (JSON.parse(r.text) as { ID: string }).ID;
    const acquired = await http(`${client.url}/v1/kv/jobs/lock?acquire=${sessionId}`, "PUT", "c1");
    expect(acquired.text.trim()).toBe("true");
  });

  it("kill -9 of the client: serfHealth critical, session invalidated, lock released", async () => {
    const killedAt = performance.now();
    await kill(client.process);
    // Lifeguard's longest suspicion in a pool of four is 6 × 4 s after the first failed probe: the failure
    // must reach the catalog well within 30 s.
    await waitFor(
      "c1 serfHealth critical",
      async () => ((await serfHealth("c1")) === "critical" ? true : undefined),
      30_000,
      200,
    );
    const detectedMs = performance.now() - killedAt;
    const leader = await awaitLeader(live());
    await waitFor(
      "the lock released",
      async () => {
        const r = await http(`${leader.url}/v1/kv/jobs/lock`);
        const [entry] = JSON.parse(r.text) as { Session?: string }[];
        return entry && !entry.Session ? true : undefined;
      },
      10_000,
    );
    const info = await http(`${leader.url}/v1/session/info/${sessionId}`);
    expect(JSON.parse(info.text)).toEqual([]);
    // The lock is free at once (lock-delay only holds off re-acquiring it).
    process.stdout.write(`client failure reflected in the catalog after ${Math.round(detectedMs)} ms\n`);
  }, 60_000);

  it("a killed server is replaced: the new one joins through gossip and the dead one leaves Raft", async () => {
    const leader = await awaitLeader(live());
    const victim = servers.find((s) => s !== leader)!;
    await kill(victim.process);
    const lan = `127.0.0.1:${portSets[servers.indexOf(leader)]!.serfLan}`;
    servers.push(startServer("s4", portSets[4]!, [lan]));
    const ids = await waitFor(
      "s4 voting and the dead server gone",
      async () => {
        const current = await awaitLeader(live(), 10_000);
        const r = await http(`${current.url}/v1/operator/raft/configuration`);
        const conf = JSON.parse(r.text) as { Servers: { Node: string; Voter: boolean }[] };
        const names = conf.Servers.filter((s) => s.Voter)
          .map((s) => s.Node)
          .sort();
        return names.includes("s4") && !names.includes(victim.name) ? names : undefined;
      },
      60_000,
      500,
    );
    expect(ids).toHaveLength(3);
    // Health is a sample of each follower's last contact: on a busy machine one heartbeat late is momentarily
    // unhealthy, so the cluster is asked until it reports healthy.
    await waitFor(
      "autopilot to report the cluster healthy",
      async () => {
        const health = await http(`${leader.url}/v1/operator/autopilot/health`);
        return health.status === 200 && (JSON.parse(health.text) as { Healthy: boolean }).Healthy
          ? true
          : undefined;
      },
      20_000,
    );
  }, 90_000);
});
