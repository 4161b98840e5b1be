// Outage recovery with raft/peers.json: the file's checks, then real `cairn agent -server` processes that lose
// quorum for good (all three killed), and come back as a one-server and as a two-server cluster.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentPorts,
  type AgentProcess,
  AgentScratch,
  awaitHttp,
  awaitLeader,
  freePorts,
  http,
  kill,
  serverFlags,
  waitFor,
} from "../../../../scripts/lib/index.js";
import { PeersFileError, parsePeersFile } from "../../src/server/recovery/peers-file.js";
import { recoverFromPeersFile } from "../../src/server/recovery/recover-from-peers-file.js";

const FILE = "/data/raft/peers.json";
const entry = (id: string, address: string, nonVoter = false) => ({ id, address, non_voter: nonVoter });

describe("parsePeersFile", () => {
  const parse = (v: unknown, self = "a") =>
    parsePeersFile(typeof v === "string" ? v : JSON.stringify(v), FILE, self);

  it("reads Consul's format: id, address, non_voter (optional, default voter)", () => {
    expect(
      parse([entry("a", "10.0.0.1:8300"), { id: "b", address: "[::1]:8300" }, entry("c", "h:1", true)]),
    ).toEqual([
      { id: "a", address: "10.0.0.1:8300", voter: true },
      { id: "b", address: "[::1]:8300", voter: true },
      { id: "c", address: "h:1", voter: false },
    ]);
  });

  it.each([
    ["[{", /not valid JSON/],
    [{ id: "a" }, /JSON array/],
    [[], /lists no server/],
    [["10.0.0.1:8300"], /old version-2 format/],
    [[entry("a", "h:1"), entry("a", "h:2")], /id a is listed twice/],
    [[entry("a", "h:1"), entry("b", "h:1")], /address h:1 is listed twice/],
    [[entry("a", "h:1", true)], /no voter/],
    [[entry("b", "h:1")], /does not list this server \(id a/],
    [[{ id: "a", address: "h:1", nonvoter: true }], /unknown field "nonvoter"/],
    [[{ id: "", address: "h:1" }], /"id" must be a non-empty string/],
    [[entry("a", "h")], /"address" must be "host:port"/],
    [[entry("a", "h:0")], /"address" must be "host:port"/],
    [[entry("a", "1::2:80")], /"address" must be "host:port"/],
    [[{ id: "a", address: "h:1", non_voter: "no" }], /"non_voter" must be true or false/],
    [[7], /server 0: must be an object/],
  ])("refuses %j", (v, reason) => {
    expect(() => parse(v)).toThrow(PeersFileError);
    expect(() => parse(v)).toThrow(reason);
  });
});

const silent = pino({ level: "silent" });
const scratch = new AgentScratch();
const ports: AgentPorts[] = [];
const names = ["s1", "s2", "s3"];
const ids: string[] = [];

function start(i: number, join: boolean): AgentProcess {
  const name = names[i]!;
  return scratch.spawn({
    name,
    ports: ports[i]!,
    flags: serverFlags({
      name,
      dataDir: scratch.path(name),
      ...(join ? { join: [`127.0.0.1:${ports[(i + 1) % 3]!.serfLan}`], bootstrapExpect: 3 } : {}),
      raftMultiplier: 1,
    }),
    logFile: scratch.path(`${name}.log`),
  });
}

const rpc = (i: number) => `127.0.0.1:${ports[i]!.server}`;
const peersFile = (i: number) => scratch.path(names[i]!, "raft", "peers.json");

async function writePeers(targets: number[], survivors: number[]): Promise<void> {
  const text = JSON.stringify(survivors.map((s) => entry(ids[s]!, rpc(s))));
  for (const t of targets) await writeFile(peersFile(t), text);
}

async function put(a: AgentProcess, key: string, value: string): Promise<void> {
  const r = await http(`${a.url}/v1/kv/${key}`, "PUT", value);
  expect([r.status, r.text]).toEqual([200, "true"]);
}

async function get(a: AgentProcess, key: string): Promise<string> {
  const r = await http(`${a.url}/v1/kv/${key}?consistent`);
  expect(r.status).toBe(200);
  return Buffer.from((JSON.parse(r.text) as [{ Value: string }])[0].Value, "base64").toString();
}

async function peers(a: AgentProcess): Promise<string[]> {
  return (JSON.parse((await http(`${a.url}/v1/status/peers`)).text) as string[]).sort();
}

const KEYS = 20;

beforeAll(async () => {
  const all = await freePorts(9);
  for (let i = 0; i < 3; i++)
    ports.push({ http: all[i * 3]!, server: all[i * 3 + 1]!, serfLan: all[i * 3 + 2]! });
}, 10_000);

afterAll(() => scratch.dispose());

describe("quorum-loss recovery with peers.json", () => {
  it("refuses a bad peers.json before touching the Raft state, and leaves the file", async () => {
    const raftDir = scratch.path("bad", "raft");
    await mkdir(raftDir, { recursive: true });
    await writeFile(join(raftDir, "peers.json"), '["127.0.0.1:8300"]');
    await expect(recoverFromPeersFile(raftDir, "a", silent)).rejects.toThrow(/version-2/);
    expect(existsSync(join(raftDir, "peers.json"))).toBe(true);
    expect(existsSync(join(raftDir, "log"))).toBe(false);
    expect(await recoverFromPeersFile(scratch.path("none"), "a", silent)).toBe(false);
  });

  it("a three-server cluster takes writes, then all three die", async () => {
    const agents = [0, 1, 2].map((i) => start(i, true));
    await Promise.all(agents.map((a) => awaitHttp(a)));
    const leader = await awaitLeader(agents, 40_000);
    await waitFor("a first write", async () => {
      const r = await http(`${leader.url}/v1/kv/k0`, "PUT", "v0");
      return r.text === "true" ? true : undefined;
    });
    for (let k = 1; k < KEYS; k++) await put(leader, `k${k}`, `v${k}`);
    for (const name of names) ids.push((await readFile(scratch.path(name, "node-id"), "utf8")).trim());
    // A lone survivor keeps only what it holds: let every server apply the last write before the crash (an
    // acknowledged write is only promised to a majority, which a single survivor need not be part of).
    for (const a of agents)
      await waitFor(`the last write on ${a.name}`, async () => {
        const r = await http(`${a.url}/v1/kv/k${KEYS - 1}?stale`);
        return r.status === 200 ? true : undefined;
      });
    // kill -9, no graceful leave.
    await Promise.all(agents.map((a) => kill(a.process)));
  }, 120_000);

  it("one survivor given a peers.json naming only itself leads, serves the keys and takes writes", async () => {
    await writePeers([0], [0]);
    const s1 = start(0, false);
    await awaitHttp(s1);
    expect(await awaitLeader([s1], 20_000)).toBe(s1);
    expect(existsSync(peersFile(0))).toBe(false);
    for (let k = 0; k < KEYS; k++) expect(await get(s1, `k${k}`)).toBe(`v${k}`);
    await put(s1, "after", "alone");
    expect(await get(s1, "after")).toBe("alone");
    expect(await peers(s1)).toEqual([rpc(0)]);
    await waitFor("the recovery in s1's log file", async () =>
      (await readFile(scratch.path("s1.log"), "utf8")).includes("RECOVERY: Raft configuration replaced")
        ? true
        : undefined,
    );

    // The new configuration is in the log: a plain restart keeps it.
    await kill(s1.process);
    const again = start(0, false);
    await awaitHttp(again);
    expect(await awaitLeader([again], 20_000)).toBe(again);
    expect(await get(again, "after")).toBe("alone");
    await kill(again.process);
  }, 120_000);

  it("two survivors given the same peers.json elect a leader and keep every acknowledged write", async () => {
    await writePeers([1, 2], [1, 2]);
    const pair = [start(1, false), start(2, false)];
    await Promise.all(pair.map((a) => awaitHttp(a)));
    const leader = await awaitLeader(pair, 20_000);
    for (const a of pair) expect(await peers(a)).toEqual([rpc(1), rpc(2)].sort());
    for (let k = 0; k < KEYS; k++) expect(await get(leader, `k${k}`)).toBe(`v${k}`);
    const follower = pair.find((a) => a !== leader)!;
    await put(follower, "after", "pair");
    expect(await get(leader, "after")).toBe("pair");
    for (const i of [1, 2]) expect(existsSync(peersFile(i))).toBe(false);
  }, 120_000);
});
