// Time in commands comes from the leader's clock: one follower's clock runs an hour ahead (-clock-offset),
// and a lock-delay started through it still ends 15 s later for every server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentProcess,
  AgentScratch,
  awaitLeader,
  freePorts,
  http,
  serverFlags,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
const { agents } = scratch;
const names = ["s1", "s2", "skewed"];
const LOCK_DELAY_MS = 15_000;

beforeAll(async () => {
  const ports = await freePorts(9);
  const serf = (i: number) => ports[6 + i]!;
  for (const [i, name] of names.entries()) {
    scratch.spawn({
      name,
      ports: { http: ports[i]!, server: ports[3 + i]!, serfLan: serf(i) },
      flags: [
        ...serverFlags({
          name,
          dataDir: scratch.path(name),
          join: [0, 1, 2].filter((j) => j !== i).map((j) => `127.0.0.1:${serf(j)}`),
          bootstrapExpect: 3,
          // Consul's default timing: a stall of a loaded machine must not hand leadership to the skewed
          // server in the middle of the test (commands would then carry its clock).
          raftMultiplier: 3,
        }),
        ...(name === "skewed" ? ["-clock-offset", "1h"] : []),
      ],
      logFile: scratch.path(`${name}.log`),
    });
  }
}, 30_000);

afterAll(() => scratch.dispose());

/** The skewed server must be a follower: if it leads, leadership moves to s1. */
async function skewedFollower(): Promise<{
  leader: AgentProcess;
  skewed: AgentProcess;
  other: AgentProcess;
}> {
  const skewed = agents[2]!;
  let leader = await awaitLeader(agents, 30_000);
  if (leader === skewed) {
    const conf = JSON.parse((await http(`${skewed.url}/v1/operator/raft/configuration`)).text) as {
      Servers: { ID: string; Address: string }[];
    };
    const id = conf.Servers.find((s) => s.Address === agents[0]!.rpcAddress)!.ID;
    expect((await http(`${skewed.url}/v1/operator/raft/transfer-leader?id=${id}`, "POST")).status).toBe(200);
    leader = await waitFor(
      "leadership to leave the skewed server",
      async () => {
        const l = await awaitLeader(agents, 10_000);
        return l === skewed ? undefined : l;
      },
      20_000,
    );
  }
  const other = agents.find((a) => a !== leader && a !== skewed)!;
  return { leader, skewed, other };
}

const acquire = async (a: AgentProcess, session: string) =>
  (await http(`${a.url}/v1/kv/leader-clock/lock?acquire=${session}`, "PUT", "held")).text;
const release = async (a: AgentProcess, session: string) =>
  (await http(`${a.url}/v1/kv/leader-clock/lock?release=${session}`, "PUT")).text;

async function createSession(a: AgentProcess, body: object): Promise<string> {
  // Servers register themselves in the catalog once a leader exists; a session needs its node.
  return waitFor(
    `a session through ${a.name}`,
    async () => {
      const r = await http(`${a.url}/v1/session/create`, "PUT", JSON.stringify(body));
      return r.status === 200 ? (JSON.parse(r.text) as { ID: string }).ID : undefined;
    },
    15_000,
  );
}

describe("a follower whose clock runs an hour ahead", () => {
  it("starts lock-delay on the leader's clock: refused before 15 s, free through any server after", async () => {
    const { leader, skewed, other } = await skewedFollower();
    const first = await createSession(skewed, { LockDelay: "15s", Name: "skewed-holder" });
    expect(await acquire(skewed, first)).toBe("true");
    // The delay runs from when the leader stamps the destroy, which is after the request leaves here.
    const destroyedAt = performance.now();
    expect((await http(`${skewed.url}/v1/session/destroy/${first}`, "PUT")).text).toBe("true");

    const next = await createSession(leader, { LockDelay: "15s", Name: "next-holder" });
    for (const a of [skewed, leader, other]) expect(await acquire(a, next)).toBe("false");

    // Poll through the servers whose clocks are right: before the fix, a delay stamped by the skewed
    // server kept them refusing for an hour.
    let attempts = 0;
    const acquiredAt = await waitFor(
      "the lock after its lock-delay",
      async () => {
        const via = attempts++ % 2 === 0 ? leader : other;
        const answer = await acquire(via, next);
        const elapsed = performance.now() - destroyedAt;
        if (answer === "true") return elapsed;
        // Refused: only while the delay lasts.
        expect(elapsed).toBeLessThan(LOCK_DELAY_MS + 5_000);
        return undefined;
      },
      LOCK_DELAY_MS + 10_000,
      250,
    );
    expect(acquiredAt).toBeGreaterThan(LOCK_DELAY_MS - 1_000);
    expect(acquiredAt).toBeLessThan(LOCK_DELAY_MS + 5_000);

    // Every server, the skewed one included, now hands the free lock to a new holder at once.
    for (const a of [skewed, other, leader]) {
      expect(await release(a, next)).toBe("true");
      expect(await acquire(a, next)).toBe("true");
    }
  }, 90_000);
});
