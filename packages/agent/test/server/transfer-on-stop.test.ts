// Three real servers at the default raft_multiplier (a 5 s election timeout) under a steady write load sent
// to the followers: SIGTERM of the leader hands leadership over before it stops, so no write fails, the
// pause is far shorter than the election the others would otherwise need, and no acknowledged write is lost.
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  AgentScratch,
  awaitLeader,
  freePorts,
  http,
  isRunning,
  serverFlags,
  signal,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
const ELECTION_TIMEOUT_MS = 5_000;

beforeAll(async () => {
  const all = await freePorts(9);
  const ports = [0, 1, 2].map((i) => ({
    http: all[i * 3]!,
    server: all[i * 3 + 1]!,
    serfLan: all[i * 3 + 2]!,
  }));
  for (let i = 0; i < 3; i++) {
    const name = `t${i + 1}`;
    scratch.spawn({
      name,
      ports: ports[i]!,
      flags: serverFlags({
        name,
        dataDir: scratch.path(name),
        join: [`127.0.0.1:${ports[(i + 1) % 3]!.serfLan}`],
        bootstrapExpect: 3,
      }),
      logFile: scratch.path(`${name}.log`),
    });
  }
}, 30_000);

afterAll(() => scratch.dispose());

it("SIGTERM of the leader under a write load: no failed write, a short pause, nothing lost", async () => {
  const leader = await awaitLeader(scratch.agents, 90_000);
  const followers = scratch.agents.filter((a) => a !== leader);
  // Every follower forwards to the leader: wait until both do, so the load starts on a settled cluster.
  await waitFor(
    "followers forwarding writes",
    async () => {
      for (const f of followers) {
        const r = await http(`${f.url}/v1/kv/warmup`, "PUT", "x").catch(() => undefined);
        if (r?.status !== 200) return undefined;
      }
      return true;
    },
    60_000,
    200,
  );

  const acknowledged: string[] = [];
  const failures: string[] = [];
  let longestMs = 0;
  let running = true;
  let seq = 0;
  const writer = async (target: (typeof followers)[number]) => {
    while (running) {
      const key = `load/${++seq}`;
      const started = performance.now();
      try {
        const r = await http(`${target.url}/v1/kv/${key}`, "PUT", key, { timeoutMs: 30_000 });
        if (r.status === 200 && r.text.trim() === "true") acknowledged.push(key);
        else failures.push(`${key}: ${r.status} ${r.text.trim()}`);
      } catch (err) {
        failures.push(`${key}: ${(err as Error).message}`);
      }
      longestMs = Math.max(longestMs, performance.now() - started);
    }
  };
  const writers = followers.flatMap((f) => [writer(f), writer(f)]);

  await waitFor("writes before the stop", async () => acknowledged.length >= 20 || undefined, 60_000, 50);
  longestMs = 0;
  const before = acknowledged.length;
  signal(leader.process, "SIGTERM");
  const code = await leader.process.exited;
  const newLeader = await awaitLeader(followers, 60_000);
  await waitFor(
    "writes after the stop",
    async () => acknowledged.length >= before + 20 || undefined,
    60_000,
    50,
  );
  running = false;
  await Promise.all(writers);

  console.log(
    `transfer on stop: longest write ${Math.round(longestMs)} ms around the leader's SIGTERM; ` +
      `${acknowledged.length} writes acknowledged, ${failures.length} failed; old leader exit ${code}`,
  );
  expect(code).toBe(0);
  expect(isRunning(leader.process)).toBe(false);
  expect(failures).toEqual([]);
  expect(longestMs).toBeLessThan(ELECTION_TIMEOUT_MS / 2);

  const r = await http(`${newLeader.url}/v1/kv/load/?keys`);
  const stored = new Set(JSON.parse(r.text) as string[]);
  expect(acknowledged.filter((k) => !stored.has(k))).toEqual([]);
}, 240_000);
