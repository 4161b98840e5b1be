// Gossip key rotation through /v1/operator/keyring on real agents (a server and a client agent, both
// started with -encrypt): install a new key everywhere, make it primary, remove the old one, with the
// members alive throughout; each agent keeps its keys in serf/local.keyring and a restart uses them.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
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

const K1 = randomBytes(32).toString("base64");
const K2 = randomBytes(16).toString("base64");

interface PoolAnswer {
  WAN: boolean;
  Datacenter: string;
  Keys: Record<string, number>;
  PrimaryKeys: Record<string, number>;
  NumNodes: number;
  Messages: Record<string, string>;
}

async function keyring(agent: AgentProcess, method = "GET", key?: string) {
  return http(
    `${agent.url}/v1/operator/keyring`,
    method,
    key === undefined ? undefined : JSON.stringify({ Key: key }),
    {
      timeoutMs: 20_000,
    },
  );
}

async function lan(agent: AgentProcess): Promise<PoolAnswer> {
  const res = await keyring(agent);
  expect(res.status, res.text).toBe(200);
  const pools = JSON.parse(res.text) as PoolAnswer[];
  expect(pools.map((p) => p.WAN)).toEqual([true, false]);
  return pools[1]!;
}

async function aliveMembers(agent: AgentProcess): Promise<number> {
  const list = JSON.parse((await http(`${agent.url}/v1/agent/members`)).text) as { Status: number }[];
  return list.filter((m) => m.Status === 1).length;
}

function spawnClient(ports: { http: number; server: number; serfLan: number }, join: string): AgentProcess {
  return scratch.spawn({
    name: "c1",
    ports,
    flags: [...clientFlags({ name: "c1", dataDir: scratch.path("c1"), join: [join] }), "-encrypt", K1],
    logFile: scratch.path("c1.log"),
  });
}

describe("gossip keyring", () => {
  it("rotates the key across the LAN and WAN pools without members failing, and keeps it across a restart", async () => {
    const [h1, s1, l1, h2, s2, l2] = (await freePorts(6)) as [number, number, number, number, number, number];
    const server = scratch.spawn({
      name: "s1",
      ports: { http: h1, server: s1, serfLan: l1 },
      flags: [
        ...serverFlags({ name: "s1", dataDir: scratch.path("s1"), bootstrapExpect: 1, raftMultiplier: 1 }),
        "-encrypt",
        K1,
      ],
      logFile: scratch.path("s1.log"),
    });
    await awaitLeader([server]);
    const clientPorts = { http: h2, server: s2, serfLan: l2 };
    let client = spawnClient(clientPorts, `127.0.0.1:${l1}`);
    await waitFor(
      "both members alive",
      async () => ((await aliveMembers(server)) === 2 ? true : undefined),
      30_000,
    );

    expect(await lan(server)).toMatchObject({ NumNodes: 2, Keys: { [K1]: 2 }, PrimaryKeys: { [K1]: 2 } });

    // Malformed keys are refused before any member is asked.
    for (const bad of ["", "not-base64!", randomBytes(20).toString("base64")]) {
      const res = await keyring(server, "POST", bad);
      expect(res.status, bad).toBe(400);
      expect(res.text).toMatch(/Invalid key/);
    }
    expect((await keyring(server, "POST", undefined)).status).toBe(400);
    expect((await http(`${server.url}/v1/operator/keyring`, "POST", "{nope")).status).toBe(400);
    expect(Object.keys((await lan(server)).Keys)).toEqual([K1]);

    // Install, asked through the client agent (forwarded to a server, as Consul's clients do).
    expect((await keyring(client, "POST", K2)).status).toBe(200);
    expect(await lan(server)).toMatchObject({
      NumNodes: 2,
      Keys: { [K1]: 2, [K2]: 2 },
      PrimaryKeys: { [K1]: 2 },
    });
    expect((await keyring(server, "PUT", K2)).status).toBe(200);
    expect((await lan(server)).PrimaryKeys).toEqual({ [K2]: 2 });
    // The primary key cannot go: a 500 naming the pool and each member, as Consul answers.
    const refused = await keyring(server, "DELETE", K2);
    expect(refused.status).toBe(500);
    expect(refused.text).toMatch(/dc1 \(LAN\) error: 2\/2 nodes reported failure/);
    expect(refused.text).toMatch(/Removing the primary key is not allowed/);
    expect((await keyring(server, "DELETE", K1)).status).toBe(200);
    const after = await lan(server);
    expect(after).toMatchObject({ NumNodes: 2, Keys: { [K2]: 2 }, PrimaryKeys: { [K2]: 2 } });
    const pools = JSON.parse((await keyring(server)).text) as PoolAnswer[];
    expect(pools[0]).toMatchObject({ WAN: true, Datacenter: "dc1", NumNodes: 1, Keys: { [K2]: 1 } });
    expect(await aliveMembers(server)).toBe(2);
    expect(await aliveMembers(client)).toBe(2);

    // Each agent wrote its keys where Consul keeps them.
    for (const dir of ["s1", "c1"])
      expect(JSON.parse(readFileSync(scratch.path(dir, "serf", "local.keyring"), "utf8"))).toEqual([K2]);
    expect(JSON.parse(readFileSync(scratch.path("s1", "serf", "remote.keyring"), "utf8"))).toEqual([K2]);

    // A restart with the old -encrypt still gossips with the rotated key from its keyring file.
    expect(signal(client.process, "SIGTERM")).toBe(true);
    await client.process.exited;
    await waitFor(
      "the client to be seen gone",
      async () => ((await aliveMembers(server)) === 1 ? true : undefined),
      30_000,
    );
    client = spawnClient(clientPorts, `127.0.0.1:${l1}`);
    await waitFor(
      "the client back",
      async () => ((await aliveMembers(server)) === 2 ? true : undefined),
      30_000,
    );
    // local-only keeps the question in the datacenter: the LAN pool alone, where both hold the rotated key.
    const local = JSON.parse(
      (await http(`${client.url}/v1/operator/keyring?local-only`)).text,
    ) as PoolAnswer[];
    expect(local).toHaveLength(1);
    expect(local[0]).toMatchObject({ WAN: false, NumNodes: 2, Keys: { [K2]: 2 } });
  }, 150_000);
});
