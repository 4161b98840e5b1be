// Three (then four) real `cairn agent -server` processes on loopback: formation by bootstrap_expect,
// forwarding, read consistency headers, blocking queries, session TTL expiry, leader failure, restart and
// a late server's promotion.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_START_MS,
  type AgentPorts,
  type AgentProcess,
  AgentScratch,
  awaitHttp,
  awaitLeader,
  freePorts,
  http,
  isRunning,
  kill,
  serverFlags,
  waitFor,
} from "../../../../scripts/lib/index.js";

const scratch = new AgentScratch();
const agents = scratch.agents;
const ports: AgentPorts[] = [];
const names = ["s1", "s2", "s3", "s4"];

/** Server `i`, joining `joinIndex`'s LAN port; a short autopilot stabilization keeps promotion quick. */
function start(i: number, joinIndex: number): AgentProcess {
  const name = names[i]!;
  return scratch.spawn({
    name,
    ports: ports[i]!,
    flags: [
      ...serverFlags({
        name,
        dataDir: scratch.path(name),
        join: [`127.0.0.1:${ports[joinIndex]!.serfLan}`],
        bootstrapExpect: 3,
        raftMultiplier: 1,
      }),
      "-hcl",
      'autopilot { server_stabilization_time = "2s" }',
    ],
    logFile: scratch.path(`${name}.log`),
  });
}

const live = () => agents.filter((a) => isRunning(a.process));

/** Waits until every live agent names the same leader; returns [leader, followers]. */
async function settledLeader(): Promise<[AgentProcess, AgentProcess[]]> {
  const running = live();
  const leader = await awaitLeader(running, 30_000);
  return [leader, running.filter((a) => a !== leader)];
}

const kvValue = (text: string) =>
  Buffer.from((JSON.parse(text) as [{ Value: string }])[0].Value, "base64").toString();

beforeAll(async () => {
  const all = await freePorts(12);
  for (let i = 0; i < 4; i++)
    ports.push({ http: all[i * 3]!, server: all[i * 3 + 1]!, serfLan: all[i * 3 + 2]! });
  // A ring of retry-join targets: formation must spread what each server learns.
  const first = [0, 1, 2].map((i) => start(i, (i + 1) % 3));
  await Promise.all(first.map((a) => awaitHttp(a)));
}, AGENT_START_MS + 10_000);

afterAll(() => scratch.dispose());

describe("a three-server cluster of real processes", () => {
  let sessionId = "";
  let sessionCreatedAt = 0;
  let renewedId = "";
  const renewals: number[] = [];
  let renewTimer: NodeJS.Timeout | undefined;

  it("forms by bootstrap_expect: one leader, three voting peers", async () => {
    const [leader] = await settledLeader();
    const peers = await waitFor(
      "three peers",
      async () => {
        const r = await http(`${leader.url}/v1/status/peers`);
        const list = JSON.parse(r.text) as string[];
        return list.length === 3 ? list : undefined;
      },
      10_000,
    );
    expect(peers.sort()).toEqual(
      agents
        .slice(0, 3)
        .map((a) => a.rpcAddress)
        .sort(),
    );
  }, 45_000);

  it("holds a session lock whose TTL the test will let run out", async () => {
    const [, followers] = await settledLeader();
    const f = followers[0]!;
    // Servers register themselves in the catalog (node + serfHealth) once a leader exists.
    const created = await waitFor(
      "a session on a registered node",
      async () => {
        const r = await http(
          `${f.url}/v1/session/create`,
          "PUT",
          JSON.stringify({ TTL: "10s", Name: "ttl" }),
        );
        return r.status === 200 ? (JSON.parse(r.text) as { ID: string }) : undefined;
      },
      10_000,
    );
    sessionId = created.ID;
    sessionCreatedAt = Date.now();
    const acquired = await http(`${f.url}/v1/kv/locks/ttl?acquire=${sessionId}`, "PUT", "holder");
    expect(acquired.text).toBe("true");

    // A second session is renewed through the other follower (forwarded to the leader's timer) meanwhile. Its
    // node is registered by the same reconciliation, which need not have reached it yet.
    const other = followers[1]!;
    const kept = await waitFor(
      "a session on the other follower's node",
      async () => {
        const r = await http(`${other.url}/v1/session/create`, "PUT", JSON.stringify({ TTL: "10s" }));
        return r.status === 200 ? (JSON.parse(r.text) as { ID: string }) : undefined;
      },
      10_000,
    );
    renewedId = kept.ID;
    const renew = async () => {
      const r = await http(`${other.url}/v1/session/renew/${renewedId}`, "PUT");
      renewals.push(r.status);
    };
    await renew();
    renewTimer = setInterval(() => void renew().catch(() => renewals.push(0)), 4_000);
    renewTimer.unref();
    const unknown = await http(`${other.url}/v1/session/renew/00000000-0000-4000-8000-000000000000`, "PUT");
    expect(unknown.status).toBe(404);
  });

  it("applies a write sent to a follower and returns the leader's cas answer", async () => {
    const [leader, followers] = await settledLeader();
    const f = followers[0]!;
    expect((await http(`${f.url}/v1/kv/fwd`, "PUT", "one")).text).toBe("true");
    const read = await http(`${leader.url}/v1/kv/fwd?consistent`);
    expect(read.status).toBe(200);
    expect(kvValue(read.text)).toBe("one");
    // cas with a stale index is refused on the leader; the follower relays false.
    expect((await http(`${f.url}/v1/kv/fwd?cas=1`, "PUT", "two")).text).toBe("false");
    expect((await http(`${followers[1]!.url}/v1/kv/fwd?cas=0`, "PUT", "two")).text).toBe("false");
    // A transaction's results come back from the leader with uint64 flags intact.
    const txn = await http(
      `${f.url}/v1/txn`,
      "PUT",
      '[{"KV":{"Verb":"set","Key":"big","Value":"eA==","Flags":18446744073709551615}},{"KV":{"Verb":"get","Key":"big"}}]',
    );
    expect(txn.status).toBe(200);
    expect(txn.text.match(/"Flags":18446744073709551615/g)).toHaveLength(2);
  });

  it("answers ?stale on a follower with the index, known-leader and last-contact headers", async () => {
    const [, followers] = await settledLeader();
    // A stale read may lag the commit of the previous test's write: wait until this follower has applied it.
    const r = await waitFor(
      "the follower to apply kv/fwd",
      async () => {
        const res = await http(`${followers[1]!.url}/v1/kv/fwd?stale`);
        return res.status === 200 ? res : undefined;
      },
      10_000,
    );
    for (const prefix of ["X-Consul", "X-Service"]) {
      expect(Number(r.headers.get(`${prefix}-Index`))).toBeGreaterThan(0);
      expect(r.headers.get(`${prefix}-KnownLeader`)).toBe("true");
      const contact = Number(r.headers.get(`${prefix}-LastContact`));
      expect(contact).toBeGreaterThanOrEqual(0);
      expect(contact).toBeLessThan(5_000);
    }
    // Missing keys carry them too.
    const missing = await http(`${followers[1]!.url}/v1/kv/nope?stale`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("X-Consul-KnownLeader")).toBe("true");
  });

  it("wakes a blocking query on a follower when another server writes, and returns at wait", async () => {
    const [leader, followers] = await settledLeader();
    const first = await http(`${followers[0]!.url}/v1/kv/watched`);
    const index = Number(first.headers.get("X-Consul-Index"));
    const started = Date.now();
    const blocked = http(`${followers[0]!.url}/v1/kv/watched?index=${index}&wait=20s`);
    await new Promise((ok) => setTimeout(ok, 300));
    expect((await http(`${leader.url}/v1/kv/watched`, "PUT", "changed")).text).toBe("true");
    const woke = await blocked;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(woke.status).toBe(200);
    expect(kvValue(woke.text)).toBe("changed");
    const newIndex = Number(woke.headers.get("X-Consul-Index"));
    expect(newIndex).toBeGreaterThan(index);

    const t0 = Date.now();
    const idle = await http(`${followers[1]!.url}/v1/kv/watched?index=${newIndex}&wait=1s`);
    const took = Date.now() - t0;
    expect(idle.status).toBe(200);
    expect(Number(idle.headers.get("X-Consul-Index"))).toBe(newIndex);
    expect(took).toBeGreaterThanOrEqual(900);
    // Honours wait=1s rather than the default five minutes; the bound leaves room for a loaded machine's stalls.
    expect(took).toBeLessThan(10_000);
  });

  it("releases the lock once the session's TTL has run out (within twice the TTL)", async () => {
    const [leader] = await settledLeader();
    const released = await waitFor(
      "the TTL session's lock to be released",
      async () => {
        const r = await http(`${leader.url}/v1/kv/locks/ttl`);
        const entry = (JSON.parse(r.text) as [{ Session?: string }])[0];
        return entry.Session === undefined ? Date.now() : undefined;
      },
      35_000,
      250,
    );
    expect(released - sessionCreatedAt).toBeGreaterThanOrEqual(10_000);
    // Twice the TTL, plus slack for a loaded machine (timers firing late, polling).
    expect(released - sessionCreatedAt).toBeLessThan(20_000 + 8_000);
    const info = await http(`${leader.url}/v1/session/info/${sessionId}`);
    expect(JSON.parse(info.text)).toEqual([]);
    // The renewed session outlived twice its TTL.
    clearInterval(renewTimer);
    const kept = await http(`${leader.url}/v1/session/info/${renewedId}`);
    expect((JSON.parse(kept.text) as { ID: string }[]).map((s) => s.ID)).toEqual([renewedId]);
    // Renewals went through the follower to the leader's timer; one may meet a stall of the loaded machine
    // (a forwarded renewal has a 3 s deadline), which the session survives: the TTL is 10 s, renewed every 4 s.
    expect(renewals.filter((status) => status === 200).length).toBeGreaterThanOrEqual(3);
  }, 40_000);

  let killed: AgentProcess | undefined;

  it("serves a ?consistent read of the last acknowledged write after the leader is killed", async () => {
    const [leader, followers] = await settledLeader();
    expect((await http(`${leader.url}/v1/kv/durable`, "PUT", "acknowledged")).text).toBe("true");
    await kill(leader.process);
    killed = leader;
    const read = await waitFor(
      "a consistent read from a surviving server",
      async () => {
        const r = await http(`${followers[0]!.url}/v1/kv/durable?consistent`);
        return r.status === 200 ? r : undefined;
      },
      20_000,
      200,
    );
    expect(kvValue(read.text)).toBe("acknowledged");
    expect(read.headers.get("X-Consul-KnownLeader")).toBe("true");
  }, 30_000);

  it(
    "restarts the killed server from its data directory: it rejoins and catches up",
    async () => {
      const [leader] = await settledLeader();
      expect((await http(`${leader.url}/v1/kv/while-down`, "PUT", "missed")).text).toBe("true");
      const old = killed!;
      const again = scratch.spawn(old.options);
      await awaitHttp(again);
      const r = await waitFor(
        "the restarted server to catch up",
        async () => {
          const res = await http(`${again.url}/v1/kv/while-down?stale`);
          return res.status === 200 ? res : undefined;
        },
        20_000,
        200,
      );
      expect(kvValue(r.text)).toBe("missed");
      // While it was down, gossip may have declared it failed and autopilot removed it from Raft; the leader then
      // adds it back as a non-voter and promotes it after server_stabilization_time. Either way it votes again.
      await waitFor(
        "the restarted server to be one of three voters again",
        async () => {
          await settledLeader();
          const peers = JSON.parse((await http(`${again.url}/v1/status/peers`)).text) as string[];
          return peers.length === 3 && peers.includes(again.rpcAddress) ? true : undefined;
        },
        20_000,
      );
    },
    AGENT_START_MS + 45_000,
  );

  it(
    "adds a fourth server started later as a non-voter and promotes it once caught up",
    async () => {
      // Watched from s4's start: once s4 names the leader it is a non-voter already, promoted 2 s later.
      const [leader] = await settledLeader();
      const s4 = start(3, 0);
      let sawNonVoter = false;
      await waitFor(
        "s4 to become a voter",
        async () => {
          const r = await http(`${leader.url}/v1/operator/raft/configuration`);
          const conf = JSON.parse(r.text) as { Servers: { Node: string; Address: string; Voter: boolean }[] };
          const s = conf.Servers.find((x) => x.Address === s4.rpcAddress);
          if (s && !s.Voter) sawNonVoter = true;
          return s?.Voter ? true : undefined;
        },
        AGENT_START_MS + 25_000,
        100,
      );
      expect(sawNonVoter).toBe(true);
      await settledLeader();
      const conf = JSON.parse((await http(`${s4.url}/v1/operator/raft/configuration`)).text) as {
        Servers: { Node: string; Voter: boolean; Leader: boolean; ProtocolVersion: string }[];
      };
      expect(conf.Servers).toHaveLength(4);
      expect(conf.Servers.filter((s) => s.Leader)).toHaveLength(1);
      expect(conf.Servers.every((s) => s.Voter && s.ProtocolVersion === "3")).toBe(true);
      expect(conf.Servers.map((s) => s.Node).sort()).toEqual(["s1", "s2", "s3", "s4"]);
      const value = await http(`${s4.url}/v1/kv/while-down?stale`);
      expect(kvValue(value.text)).toBe("missed");
    },
    AGENT_START_MS + 40_000,
  );

  type Conf = { Servers: { ID: string; Node: string; Address: string; Voter: boolean; Leader: boolean }[] };
  const configuration = async (a: AgentProcess) =>
    JSON.parse((await http(`${a.url}/v1/operator/raft/configuration`)).text) as Conf;

  it("transfers leadership on request, forwarded from a follower; writes to the old leader meanwhile all land", async () => {
    const [leader, followers] = await settledLeader();
    const target = followers.find((f) => f.name !== "s4")!;
    const conf = await configuration(leader);
    const id = conf.Servers.find((s) => s.Address === target.rpcAddress)!.ID;
    const via = followers.find((f) => f !== target)!;
    // Writes keep going to the old leader through the hand-over: those it proposes itself before, those it
    // forwards after, and those caught in between are retried there; every one is acknowledged.
    let writing = true;
    const writes: Promise<string>[] = [];
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        writes.push(http(`${leader.url}/v1/kv/handover/${i}`, "PUT", `v${i}`).then((w) => w.text));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const r = await http(`${via.url}/v1/operator/raft/transfer-leader?id=${id}`, "POST");
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toEqual({ Success: true });
    const [now] = await settledLeader();
    expect(now.name).toBe(target.name);
    await new Promise((resolve) => setTimeout(resolve, 100));
    writing = false;
    await writer;
    expect(writes.length).toBeGreaterThan(10);
    expect(await Promise.all(writes)).toEqual(writes.map(() => "true"));
    const keys = JSON.parse((await http(`${now.url}/v1/kv/handover/?keys`)).text) as string[];
    expect(keys).toHaveLength(writes.length);
    const unknown = await http(`${via.url}/v1/operator/raft/transfer-leader?id=nope`, "POST");
    expect(unknown.status).toBe(400);
  }, 20_000);

  it("restores a snapshot through Raft: every server returns to the saved state", async () => {
    const [leader, followers] = await settledLeader();
    const saved = await fetch(`${followers[0]!.url}/v1/snapshot`);
    expect(saved.status).toBe(200);
    const archive = new Uint8Array(await saved.arrayBuffer());
    expect((await http(`${leader.url}/v1/kv/after-snapshot`, "PUT", "gone soon")).text).toBe("true");
    const put = await fetch(`${followers[1]!.url}/v1/snapshot`, { method: "PUT", body: archive });
    expect(put.status).toBe(200);
    for (const a of live()) {
      const r = await http(`${a.url}/v1/kv/after-snapshot?consistent`);
      expect(r.status).toBe(404);
      expect(kvValue((await http(`${a.url}/v1/kv/while-down?consistent`)).text)).toBe("missed");
    }
    // Writes carry on above the restore.
    expect((await http(`${followers[0]!.url}/v1/kv/after-restore`, "PUT", "ok")).text).toBe("true");
    const bad = await fetch(`${leader.url}/v1/snapshot`, { method: "PUT", body: "not a snapshot" });
    expect(bad.status).toBe(400);
  }, 20_000);

  it("removes a failed server from the Raft configuration by address", async () => {
    const [leader] = await settledLeader();
    const s4 = live().find((a) => a.name === "s4")!;
    // As Consul's, the leader adds back any server gossip still sees alive at its next reconcile pass (one
    // runs right after a leadership change, as the transfer above made), and autopilot removes a failed one
    // by itself: remove-peer is for a failed server that autopilot's cleanup leaves in place.
    const settings = await http(`${leader.url}/v1/operator/autopilot/configuration`);
    const noCleanup = { ...(JSON.parse(settings.text) as object), CleanupDeadServers: false };
    const put = await http(
      `${leader.url}/v1/operator/autopilot/configuration`,
      "PUT",
      JSON.stringify(noCleanup),
    );
    expect(put.status).toBe(200);
    await kill(s4.process);
    // Lifeguard's longest suspicion in a pool of four is 6 × 4 s after the first failed probe, and probes slow
    // down on a loaded node.
    await waitFor(
      "the leader's gossip to see s4 failed",
      async () => {
        const r = await http(`${leader.url}/v1/agent/members`);
        const members = JSON.parse(r.text) as { Name: string; Status: number }[];
        return members.find((m) => m.Name === "s4")?.Status === 4 ? true : undefined;
      },
      50_000,
    );
    const r = await http(`${leader.url}/v1/operator/raft/peer?address=${s4.rpcAddress}`, "DELETE");
    expect(r.status).toBe(200);
    const conf = await configuration(leader);
    expect(conf.Servers.map((s) => s.Node).sort()).toEqual(["s1", "s2", "s3"]);
    const again = await http(`${leader.url}/v1/operator/raft/peer?address=${s4.rpcAddress}`, "DELETE");
    expect(again.status).toBe(400);
    expect(again.text).toContain("was not found in the Raft configuration");
    const neither = await http(`${leader.url}/v1/operator/raft/peer`, "DELETE");
    expect(neither.status).toBe(400);
  }, 70_000);

  it("answers 500 No cluster leader after the hold time when quorum is lost, and still serves ?stale", async () => {
    const [, followers] = await settledLeader();
    const survivor = followers.find((f) => f.name !== "s4")!;
    const doomed = live().filter((a) => a !== survivor);
    await Promise.all(doomed.map((a) => kill(a.process)));
    const started = Date.now();
    const write = await http(`${survivor.url}/v1/kv/no-quorum`, "PUT", "x", { timeoutMs: 30_000 });
    expect(write.status).toBe(500);
    expect(write.text).toBe("No cluster leader");
    // Consul's rpc_hold_timeout is 7 s; the write also waited for the dead leader to be noticed.
    expect(Date.now() - started).toBeGreaterThanOrEqual(6_000);
    const stale = await http(`${survivor.url}/v1/kv/durable?stale`);
    expect(stale.status).toBe(200);
    expect(stale.headers.get("X-Consul-KnownLeader")).toBe("false");
  }, 40_000);
});
