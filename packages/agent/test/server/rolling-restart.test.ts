// A rolling restart of a three-server cluster under a steady write load, as an operator does it: take one
// server out of the clients' rotation, stop it with SIGTERM, start it again with its data, wait until it is
// back in the cluster, put it back in rotation, next. Writes already sent to a server when it is stopped
// must still be answered (its HTTP API and its Raft transport drain first; a leader hands over first), so no
// write fails and every acknowledged write is kept.
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type AgentProcess,
  AgentScratch,
  awaitLeader,
  freePorts,
  http,
  leaderAddress,
  serverFlags,
  signal,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
/** The agent serving each slot now (a restart replaces the process). */
const slots: AgentProcess[] = [];

beforeAll(async () => {
  const all = await freePorts(9);
  const ports = [0, 1, 2].map((i) => ({
    http: all[i * 3]!,
    server: all[i * 3 + 1]!,
    serfLan: all[i * 3 + 2]!,
  }));
  for (let i = 0; i < 3; i++) {
    const name = `r${i + 1}`;
    slots.push(
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
      }),
    );
  }
}, 30_000);

afterAll(() => scratch.dispose());

/** Every server names the same leader, all three are voters, and each one takes a write. */
async function whole(): Promise<void> {
  const leader = await awaitLeader(slots, 90_000);
  await waitFor(
    "three voters, each server taking writes",
    async () => {
      const conf = await http(`${leader.url}/v1/operator/raft/configuration`).catch(() => undefined);
      if (conf?.status !== 200) return undefined;
      const servers = (JSON.parse(conf.text) as { Servers: { Voter: boolean }[] }).Servers;
      if (servers.filter((s) => s.Voter).length !== 3) return undefined;
      for (const s of slots) {
        const r = await http(`${s.url}/v1/kv/warmup`, "PUT", "x").catch(() => undefined);
        if (r?.status !== 200) return undefined;
      }
      return true;
    },
    90_000,
    200,
  );
}

it("restarting every server in turn under a write load fails no write and loses none", async () => {
  await whole();
  const inRotation = new Set(slots.map((_, i) => i));
  const acknowledged: string[] = [];
  const failures: string[] = [];
  let longestMs = 0;
  let running = true;
  let seq = 0;
  let turn = 0;
  // Writes on their way to each slot: a server is stopped only once none is, since a request whose
  // connection is still being opened when the server closes its listener is refused, not drained.
  const inFlight = slots.map(() => 0);
  const writer = async () => {
    while (running) {
      const choices = [...inRotation];
      const slot = choices[turn++ % choices.length]!;
      const target = slots[slot]!;
      const key = `rolling/${++seq}`;
      const started = performance.now();
      inFlight[slot]!++;
      try {
        const r = await http(`${target.url}/v1/kv/${key}`, "PUT", key, { timeoutMs: 30_000 });
        if (r.status === 200 && r.text.trim() === "true") acknowledged.push(key);
        else failures.push(`${key} via ${target.name}: ${r.status} ${r.text.trim()}`);
      } catch (err) {
        const cause = (err as Error).cause as Error | undefined;
        failures.push(`${key} via ${target.name}: ${(err as Error).message} ${cause?.message ?? ""}`);
      } finally {
        inFlight[slot]!--;
      }
      longestMs = Math.max(longestMs, performance.now() - started);
    }
  };
  const writers = Promise.all([writer(), writer(), writer(), writer()]);
  const acksAfter = async (what: string, more: number) => {
    const target = acknowledged.length + more;
    await waitFor(what, async () => acknowledged.length >= target || undefined, 60_000, 50);
  };

  try {
    await acksAfter("writes before the first restart", 20);
    for (let i = 0; i < slots.length; i++) {
      const old = slots[i]!;
      const wasLeader = (await leaderAddress(old.url)) === old.rpcAddress;
      inRotation.delete(i);
      await waitFor(
        `writes on their way to ${old.name} to answer`,
        async () => inFlight[i] === 0 || undefined,
        30_000,
        5,
      );
      signal(old.process, "SIGTERM");
      const code = await old.process.exited;
      expect(code, `${old.name} exit code`).toBe(0);
      await acksAfter(`writes while ${old.name} is down`, 10);
      slots[i] = scratch.spawn(old.options);
      await whole();
      inRotation.add(i);
      await acksAfter(`writes after ${old.name} is back`, 20);
      console.log(
        `${old.name}${wasLeader ? " (leader)" : ""} restarted; ${acknowledged.length} writes acknowledged so far, longest ${Math.round(longestMs)} ms`,
      );
    }
  } finally {
    running = false;
    await writers;
  }

  expect(failures).toEqual([]);
  const leader = await awaitLeader(slots, 60_000);
  const r = await http(`${leader.url}/v1/kv/rolling/?keys&consistent`);
  const stored = new Set(JSON.parse(r.text) as string[]);
  expect(acknowledged.filter((k) => !stored.has(k))).toEqual([]);
  expect(acknowledged.length).toBeGreaterThan(100);
}, 600_000);
