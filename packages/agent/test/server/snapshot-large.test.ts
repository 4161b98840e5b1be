// A snapshot restore larger than one Raft entry could ever carry (20 MiB of KV values) on three real server
// processes: uploaded to a follower, streamed through the log in chunks, and read back from every server;
// a server restarted afterwards replays it from its own data directory.
import { type Command, StateStore } from "@cairn/fsm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPorts,
  type AgentProcess,
  AgentScratch,
  awaitLeader,
  freePorts,
  http,
  isRunning,
  serverFlags,
  stop,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
const names = ["s1", "s2", "s3"];
const ports: AgentPorts[] = [];
const KEYS = 40;
const VALUE_BYTES = 512 * 1024;

function start(i: number): AgentProcess {
  const name = names[i]!;
  return scratch.spawn({
    name,
    ports: ports[i]!,
    flags: serverFlags({
      name,
      dataDir: scratch.path(name),
      join: [0, 1, 2].filter((j) => j !== i).map((j) => `127.0.0.1:${ports[j]!.serfLan}`),
      bootstrapExpect: 3,
      raftMultiplier: 1,
    }),
    logFile: scratch.path(`${name}.log`),
  });
}

/** Value `i`: distinct bytes in every key, so a chunk out of place would show. */
const bigValue = (i: number): Buffer => Buffer.alloc(VALUE_BYTES, `value ${i} `);

/** An archive as GET /v1/snapshot serves it, built by the fsm itself: KEYS values of VALUE_BYTES. */
function bigArchive(): Buffer {
  const store = new StateStore();
  for (let i = 0; i < KEYS; i++) {
    const command: Command = { v: 1, type: "kv.set", key: `big/${i}`, value: bigValue(i), flags: BigInt(i) };
    store.applyCommand(i + 1, command);
  }
  return Buffer.concat([...store.snapshot()]);
}

/** Waits until `agent` serves the restored state from its own store (a stale read is local). */
async function restoredOn(agent: AgentProcess): Promise<void> {
  const keys = await waitFor(
    `the restored keys on ${agent.name}`,
    async () => {
      const r = await http(`${agent.url}/v1/kv/?keys&stale`);
      if (r.status !== 200) return undefined;
      const list = (JSON.parse(r.text) as string[]).filter((k) => k !== "after-restore");
      return list.length === KEYS && !list.includes("before-restore") ? list : undefined;
    },
    60_000,
  );
  expect(keys).toHaveLength(KEYS);
  for (const i of [0, 17, KEYS - 1]) {
    const r = await fetch(`${agent.url}/v1/kv/big/${i}?raw&stale`);
    expect(r.status).toBe(200);
    expect(Buffer.from(await r.arrayBuffer()).equals(bigValue(i))).toBe(true);
  }
  const meta = JSON.parse((await http(`${agent.url}/v1/kv/big/5?stale`)).text) as [{ Flags: number }];
  expect(meta[0].Flags).toBe(5);
}

beforeAll(async () => {
  const all = await freePorts(9);
  for (let i = 0; i < 3; i++) ports.push({ http: all[i]!, server: all[3 + i]!, serfLan: all[6 + i]! });
  for (let i = 0; i < 3; i++) start(i);
}, 30_000);

afterAll(() => scratch.dispose());

describe("a snapshot restore larger than one Raft entry", () => {
  it("streams through the log and every server holds the restored state", async () => {
    const leader = await awaitLeader(scratch.agents, 30_000);
    const follower = scratch.agents.find((a) => a !== leader)!;
    expect((await http(`${leader.url}/v1/kv/before-restore`, "PUT", "gone soon")).text).toBe("true");
    const archive = bigArchive();
    expect(archive.byteLength).toBeGreaterThan(20 * 1024 * 1024);

    const put = await fetch(`${follower.url}/v1/snapshot`, { method: "PUT", body: archive });
    expect(put.status).toBe(200);
    for (const agent of scratch.agents) await restoredOn(agent);

    // Writes carry on above the restore.
    expect((await http(`${follower.url}/v1/kv/after-restore`, "PUT", "ok")).text).toBe("true");
  }, 180_000);

  it("a bad archive of many chunks answers 400 and changes nothing", async () => {
    const [agent] = scratch.agents;
    const archive = bigArchive();
    // Cut out bytes in the middle of the KV frame: the framing fails only at the end of the stream.
    const bad = Buffer.concat([
      archive.subarray(0, 10 * 1024 * 1024),
      archive.subarray(10 * 1024 * 1024 + 7),
    ]);
    const put = await fetch(`${agent!.url}/v1/snapshot`, { method: "PUT", body: bad });
    const answer = { status: put.status, body: await put.text() };
    expect(answer).toMatchObject({ status: 400, body: expect.stringMatching(/Invalid snapshot/) });
    for (const a of scratch.agents) {
      const r = await http(`${a.url}/v1/kv/after-restore?consistent`);
      expect(r.status).toBe(200);
      expect(JSON.parse((await http(`${a.url}/v1/kv/?keys&consistent`)).text)).toHaveLength(KEYS + 1);
    }
  }, 180_000);

  it("a server restarted afterwards replays the restore from its data directory", async () => {
    const leader = await awaitLeader(scratch.agents, 30_000);
    const index = scratch.agents.findIndex((a) => a !== leader);
    const victim = scratch.agents[index]!;
    await stop(victim.process);
    expect(isRunning(victim.process)).toBe(false);
    const restarted = start(index);
    await restoredOn(restarted);
  }, 180_000);
});
