// Two datacenters of three servers and a client agent each, WAN-joined on loopback: every endpoint family
// answers `?dc=` from the other datacenter, with that datacenter's data, index and leader headers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentScratch, type Federation, startFederation, waitFor } from "../../../../scripts/lib/index.js";
import { cairnInProcess } from "../../../cli/test/helpers/cairn.js";
import { call, index, ok } from "./harness.js";

const scratch = new AgentScratch();
let fed: Federation;

beforeAll(async () => {
  fed = await startFederation(scratch.root, { datacenters: ["dc1", "dc2"] });
}, 180_000);

afterAll(async () => {
  await fed?.stop();
  await scratch.dispose();
});

const dc1 = () => fed.dc("dc1");
const dc2 = () => fed.dc("dc2");
/** The dc1 server every forwarded request starts from (any server forwards). */
const local = () => dc1().servers[1]!;
const client1 = () => dc1().client!;

describe("dc forwarding between two datacenters", { timeout: 120_000 }, () => {
  it("KV: write, read and consistency modes through ?dc=, with the remote's index and leader headers", async () => {
    expect(await ok(local(), "/v1/kv/fwd/a?dc=dc2", "PUT", "remote")).toBe(true);
    // Written in dc2 only.
    expect((await call(local(), "/v1/kv/fwd/a")).status).toBe(404);
    expect((await call(dc2().servers[0]!, "/v1/kv/fwd/a?raw")).text).toBe("remote");
    for (const mode of ["", "&stale", "&consistent"]) {
      const res = await call(local(), `/v1/kv/fwd/a?dc=dc2&raw${mode}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe("remote");
      expect(res.headers.get("x-consul-knownleader")).toBe("true");
      expect(res.headers.get("x-consul-lastcontact")).not.toBeNull();
    }
    // The index is dc2's: the same as a dc2 server answers, not dc1's.
    const there = await call(dc2().servers[0]!, "/v1/kv/fwd/a?consistent");
    const via = await call(local(), "/v1/kv/fwd/a?dc=dc2&consistent");
    expect(index(via)).toBe(index(there));
    expect(via.json).toEqual(there.json);
  });

  it("a blocking query is held in the remote datacenter and woken by a write there", async () => {
    await ok(dc2().servers[0]!, "/v1/kv/fwd/block", "PUT", "v1");
    const first = await call(client1(), "/v1/kv/fwd/block?dc=dc2");
    const started = performance.now();
    const blocked = call(client1(), `/v1/kv/fwd/block?dc=dc2&index=${index(first)}&wait=60s&raw`);
    // Still held after a while: nothing changed.
    const early = await Promise.race([blocked.then(() => "answered"), sleep(1500).then(() => "held")]);
    expect(early).toBe("held");
    await ok(dc2().servers[2]!, "/v1/kv/fwd/block", "PUT", "v2");
    const res = await blocked;
    expect(res.status).toBe(200);
    expect(res.text).toBe("v2");
    expect(index(res)).toBeGreaterThan(index(first));
    expect(performance.now() - started).toBeLessThan(30_000);
    // A wait that expires answers with the same index, from the remote.
    const timedOut = await call(local(), `/v1/kv/fwd/block?dc=dc2&index=${index(res)}&wait=1s`);
    expect(timedOut.status).toBe(200);
    expect(index(timedOut)).toBe(index(res));
  });

  it("catalog and health: register, read and block in the other datacenter", async () => {
    const reg = { Node: "ext-node", Address: "10.0.0.9", Service: { Service: "web", Port: 80 } };
    expect(await ok(local(), "/v1/catalog/register?dc=dc2", "PUT", reg)).toBe(true);
    // Consul forwards by the body's Datacenter too.
    const byBody = { ...reg, Node: "ext-node2", Datacenter: "dc2" };
    expect(await ok(client1(), "/v1/catalog/register", "PUT", byBody)).toBe(true);
    const nodes = await ok<{ Node: string }[]>(local(), "/v1/catalog/service/web?dc=dc2");
    expect(nodes.map((n) => n.Node).sort()).toEqual(["ext-node", "ext-node2"]);
    expect(await ok(local(), "/v1/catalog/service/web")).toEqual([]);
    const health = await call(client1(), "/v1/health/service/web?dc=dc2");
    expect(health.status).toBe(200);
    expect((health.json as unknown[]).length).toBe(2);
    // Blocking health query woken by a deregistration in dc2.
    const blocked = call(local(), `/v1/health/service/web?dc=dc2&index=${index(health)}&wait=60s`);
    await ok(dc2().servers[1]!, "/v1/catalog/deregister", "PUT", { Node: "ext-node2" });
    const after = await blocked;
    expect((after.json as unknown[]).length).toBe(1);
    const catalogNodes = await ok<{ Node: string; Datacenter: string }[]>(
      client1(),
      "/v1/catalog/nodes?dc=dc2",
    );
    expect(catalogNodes.map((n) => n.Node)).toContain("dc2-c1");
    expect(catalogNodes.every((n) => n.Datacenter === "dc2")).toBe(true);
    expect((await ok<Record<string, string[]>>(local(), "/v1/catalog/services?dc=dc2")).web).toEqual([]);
    const states = await call(local(), "/v1/health/state/any?dc=dc2");
    expect(states.status).toBe(200);
    expect(await ok(local(), "/v1/catalog/deregister", "PUT", { Node: "ext-node", Datacenter: "dc2" })).toBe(
      true,
    );
  });

  it("sessions and transactions in the other datacenter", async () => {
    // A session lives on a node of its own datacenter: dc2's client agent.
    const { ID } = await ok<{ ID: string }>(local(), "/v1/session/create?dc=dc2", "PUT", { Node: "dc2-c1" });
    expect(await ok(local(), `/v1/kv/fwd/lock?dc=dc2&acquire=${ID}`, "PUT", "held")).toBe(true);
    const info = await ok<{ ID: string; Node: string }[]>(client1(), `/v1/session/info/${ID}?dc=dc2`);
    expect(info[0]).toMatchObject({ ID, Node: "dc2-c1" });
    expect(await ok(local(), `/v1/session/info/${ID}`)).toEqual([]);
    const list = await call(local(), "/v1/session/list?dc=dc2");
    expect((list.json as { ID: string }[]).map((s) => s.ID)).toContain(ID);
    await ok(local(), `/v1/session/renew/${ID}?dc=dc2`, "PUT");
    const txn = await call(client1(), "/v1/txn?dc=dc2", "PUT", [
      { KV: { Verb: "set", Key: "fwd/txn", Value: Buffer.from("t").toString("base64") } },
      { KV: { Verb: "get", Key: "fwd/lock" } },
    ]);
    expect(txn.status).toBe(200);
    const results = (txn.json as { Results: { KV: { Key: string; Session?: string } }[] }).Results;
    expect(results[1]!.KV).toMatchObject({ Key: "fwd/lock", Session: ID });
    expect((await call(dc2().servers[0]!, "/v1/kv/fwd/txn?raw")).text).toBe("t");
    expect(await ok(local(), `/v1/session/destroy/${ID}?dc=dc2`, "PUT")).toBe(true);
    // A transaction rejected in dc2 passes its error through.
    const bad = await call(local(), "/v1/txn?dc=dc2", "PUT", [{ KV: { Verb: "nope", Key: "x" } }]);
    expect(bad.status).toBe(
      (await call(dc2().servers[0]!, "/v1/txn", "PUT", [{ KV: { Verb: "nope", Key: "x" } }])).status,
    );
    expect(bad.status).toBeGreaterThanOrEqual(400);
  });

  it("config entries, prepared queries and discovery chains in the other datacenter", async () => {
    const entry = { Kind: "service-defaults", Name: "api", Protocol: "http" };
    expect(await ok(local(), "/v1/config?dc=dc2", "PUT", entry)).toBe(true);
    const read = await call(client1(), "/v1/config/service-defaults/api?dc=dc2");
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({ Kind: "service-defaults", Name: "api", Protocol: "http" });
    const chain = await ok<{ Chain: { Datacenter: string; Protocol: string } }>(
      local(),
      "/v1/discovery-chain/api?dc=dc2",
    );
    expect(chain.Chain).toMatchObject({ Datacenter: "dc2", Protocol: "http" });
    await ok(dc2().servers[0]!, "/v1/catalog/register", "PUT", {
      Node: "q-node",
      Address: "10.0.0.7",
      Service: { Service: "db", Port: 5432 },
    });
    const { ID } = await ok<{ ID: string }>(local(), "/v1/query?dc=dc2", "POST", {
      Name: "db-q",
      Service: { Service: "db" },
    });
    const listed = await ok<{ ID: string }[]>(local(), "/v1/query?dc=dc2");
    expect(listed.map((q) => q.ID)).toContain(ID);
    const executed = await ok<{ Datacenter: string; Nodes: { Node: { Node: string } }[] }>(
      client1(),
      `/v1/query/${ID}/execute?dc=dc2`,
    );
    expect(executed.Datacenter).toBe("dc2");
    expect(executed.Nodes.map((n) => n.Node.Node)).toEqual(["q-node"]);
    expect((await call(local(), `/v1/query/${ID}`)).status).toBe(404);
    expect((await call(local(), "/v1/config/service-defaults/api?dc=dc2", "DELETE")).status).toBe(200);
    expect((await call(dc2().servers[0]!, "/v1/config/service-defaults/api")).status).toBe(404);
  });

  it("coordinates, status, operator and ACL endpoints answer for the other datacenter", async () => {
    const dc2Servers = dc2()
      .servers.map((s) => s.rpcAddress)
      .sort();
    expect((await ok<string[]>(local(), "/v1/status/peers?dc=dc2")).slice().sort()).toEqual(dc2Servers);
    expect(dc2Servers).toContain(await ok<string>(client1(), "/v1/status/leader?dc=dc2"));
    const raft = await ok<{ Servers: { Address: string }[] }>(
      local(),
      "/v1/operator/raft/configuration?dc=dc2",
    );
    expect(raft.Servers.map((s) => s.Address).sort()).toEqual(dc2Servers);
    const health = await call(local(), "/v1/operator/autopilot/health?dc=dc2");
    expect(health.status).toBe(200);
    // A snapshot of dc2's state, saved there (binary body, passed through).
    const snapshot = await fetch(`${local().url}/v1/snapshot?dc=dc2`);
    expect(snapshot.status).toBe(200);
    expect((await snapshot.arrayBuffer()).byteLength).toBeGreaterThan(0);
    await waitFor("dc2's coordinates", async () => {
      const coords = await ok<{ Node: string }[]>(local(), "/v1/coordinate/nodes?dc=dc2");
      return coords.some((c) => c.Node.startsWith("dc2-")) ? coords : undefined;
    });
    const coords = await ok<{ Node: string }[]>(local(), "/v1/coordinate/nodes?dc=dc2");
    expect(coords.every((c) => c.Node.startsWith("dc2-"))).toBe(true);
    // ACLs are off in dc2: its answer comes through unchanged.
    const acl = await call(local(), "/v1/acl/policies?dc=dc2");
    const direct = await call(dc2().servers[0]!, "/v1/acl/policies");
    expect([acl.status, acl.text]).toEqual([direct.status, direct.text]);
  });

  it("blocking queries of every family are held in the other datacenter and woken by a write there", async () => {
    const there = () => dc2().servers[0]!;
    const families: [string, () => Promise<unknown>][] = [
      [
        "/v1/catalog/services",
        () =>
          ok(there(), "/v1/catalog/register", "PUT", {
            Node: "b-node",
            Address: "10.1.1.1",
            Service: { Service: "b-svc" },
          }),
      ],
      ["/v1/session/list", () => ok(there(), "/v1/session/create", "PUT", { Node: "dc2-c1" })],
      [
        "/v1/config/service-defaults",
        () => ok(there(), "/v1/config", "PUT", { Kind: "service-defaults", Name: "b-svc", Protocol: "grpc" }),
      ],
      [
        "/v1/discovery-chain/b-svc",
        () => ok(there(), "/v1/config", "PUT", { Kind: "service-defaults", Name: "b-svc", Protocol: "http" }),
      ],
      [
        "/v1/coordinate/nodes",
        () =>
          ok(there(), "/v1/coordinate/update", "PUT", {
            Node: "b-node",
            Coord: { Vec: [0.001, 0, 0, 0, 0, 0, 0, 0], Error: 1.5, Adjustment: 0, Height: 0.00001 },
          }),
      ],
    ];
    for (const [path, write] of families) {
      const first = await call(client1(), `${path}?dc=dc2`);
      expect(first.status, path).toBe(200);
      const sep = path.includes("?") ? "&" : "?";
      // dc2's own agents change some of these in the background (coordinate batches every few seconds): a
      // query they wake must come back above the index it waited on, and is then armed again there.
      let waited = index(first);
      let blocked = call(client1(), `${path}${sep}dc=dc2&index=${waited}&wait=60s`);
      for (let round = 0; ; round++) {
        const early = await Promise.race([blocked.then(() => "answered"), sleep(500).then(() => "held")]);
        if (early === "held") break;
        expect(round, `${path} answered at once ${round + 1} times`).toBeLessThan(5);
        const answer = await blocked;
        expect(answer.status, path).toBe(200);
        expect(index(answer), path).toBeGreaterThan(waited);
        waited = index(answer);
        blocked = call(client1(), `${path}${sep}dc=dc2&index=${waited}&wait=60s`);
      }
      await write();
      const woken = await blocked;
      expect(woken.status, path).toBe(200);
      expect(index(woken), path).toBeGreaterThan(waited);
    }
  });

  it("an event fired for the other datacenter reaches its agents", async () => {
    const fired = await ok<{ ID: string }>(client1(), "/v1/event/fire/deploy?dc=dc2", "PUT", "payload");
    await waitFor("the event in dc2", async () => {
      const events = await ok<{ ID: string }[]>(dc2().client!, "/v1/event/list?name=deploy");
      return events.some((e) => e.ID === fired.ID) ? true : undefined;
    });
    const here = await ok<{ ID: string }[]>(client1(), "/v1/event/list?name=deploy");
    expect(here.some((e) => e.ID === fired.ID)).toBe(false);
  });

  it("an unknown datacenter answers 500 No path to datacenter, from servers and client agents alike", async () => {
    for (const agent of [local(), client1()]) {
      for (const [method, path] of [
        ["GET", "/v1/kv/x?dc=nowhere"],
        ["PUT", "/v1/kv/x?dc=nowhere"],
        ["GET", "/v1/health/service/web?dc=nowhere&index=5"],
        ["PUT", "/v1/event/fire/x?dc=nowhere"],
      ] as const) {
        const res = await call(agent, path, method, method === "PUT" ? "v" : undefined);
        expect([res.status, res.text.trim()], `${method} ${path} on ${agent.name}`).toEqual([
          500,
          "No path to datacenter",
        ]);
      }
    }
    const byBody = await call(local(), "/v1/catalog/register", "PUT", {
      Node: "n",
      Address: "1.2.3.4",
      Datacenter: "nowhere",
    });
    expect([byBody.status, byBody.text.trim()]).toEqual([500, "No path to datacenter"]);
  });

  it("endpoints that ignore dc answer for this agent whatever it names", async () => {
    for (const agent of [local(), client1()]) {
      const self = await call(agent, "/v1/agent/self?dc=nowhere");
      expect(self.status).toBe(200);
      expect((self.json as { Config: { Datacenter: string } }).Config.Datacenter).toBe("dc1");
      const members = await call(agent, "/v1/agent/members?dc=dc2");
      expect(members.status).toBe(200);
      expect((members.json as { Tags: { dc: string } }[]).every((m) => m.Tags.dc === "dc1")).toBe(true);
      expect(await ok(agent, "/v1/catalog/datacenters?dc=nowhere")).toEqual(["dc1", "dc2"].sort());
      expect((await call(agent, "/v1/event/list?dc=nowhere")).status).toBe(200);
    }
  });
});

describe("the CLI across datacenters", { timeout: 120_000 }, () => {
  const cli = (agent: { url: string }, ...args: string[]) =>
    cairnInProcess(args, { env: { CAIRN_HTTP_ADDR: agent.url } });

  it("-datacenter sends any command's requests to that datacenter", async () => {
    const put = await cli(client1(), "kv", "put", "-datacenter", "dc2", "cli/key", "there");
    expect(put.stderr).toBe("");
    expect(put.code).toBe(0);
    expect((await cli(dc2().client!, "kv", "get", "cli/key")).stdout).toBe("there\n");
    expect((await cli(local(), "kv", "get", "-datacenter", "dc2", "cli/key")).stdout).toBe("there\n");
    expect((await cli(local(), "kv", "get", "cli/key")).code).toBe(1);
    const nodes = await cli(local(), "catalog", "nodes", "-datacenter", "dc2");
    expect(nodes.stdout).toMatch(/dc2-c1/);
    expect(nodes.stdout).not.toMatch(/dc1-/);
    const unknown = await cli(local(), "kv", "get", "-datacenter", "nowhere", "cli/key");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No path to datacenter/);
  });

  it("members -wan lists every datacenter's servers; join -wan joins the WAN pool", async () => {
    const members = await cli(local(), "members", "-wan");
    expect(members.code).toBe(0);
    for (const name of ["dc1-s1.dc1", "dc1-s2.dc1", "dc1-s3.dc1", "dc2-s1.dc2", "dc2-s2.dc2", "dc2-s3.dc2"])
      expect(members.stdout).toContain(name);
    const wanPort = dc2().wanPorts.get("dc2-s3")!;
    const joined = await cli(local(), "join", "-wan", `127.0.0.1:${wanPort}`);
    expect([joined.code, joined.stdout]).toEqual([0, "Successfully joined cluster by contacting 1 nodes.\n"]);
    // A client agent has no WAN pool.
    const refused = await cli(client1(), "join", "-wan", `127.0.0.1:${wanPort}`);
    expect(refused.code).toBe(1);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
