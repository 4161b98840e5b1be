import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMember } from "../../src/membership/index.js";
import { sayHello } from "../../src/server/join/join-client.js";
import { joinRoute } from "../../src/server/join/join-listener.js";
import { JOIN_PATH, type ServerInfo } from "../../src/server/join/protocol.js";
import { startMember, statusOf, stopAll, tempDir, until } from "./harness.js";

afterEach(stopAll);

const ALIVE = 1;
const LEAVING = 2;
const LEFT = 3;
const FAILED = 4;

describe("AgentMembership on real gossip pools", () => {
  it("joins agents, shows Consul's member JSON, knows the servers and carries user messages", async () => {
    const s1 = await startMember("s1", { serverPort: 8300, config: { server: true, bootstrapExpect: 3 } });
    const c1 = await startMember("c1");
    const c2 = await startMember("c2", { config: { startJoin: [s1.lanAddress] } });
    expect(await c1.join([s1.lanAddress], { wan: false })).toBe(1);
    await until(() =>
      [s1, c1, c2].every((m) => m.lanMembers().filter((r) => r.status === "alive").length === 3),
    );

    const members = s1.members({ wan: false });
    expect(members.map((m) => m.Name)).toEqual(["c1", "c2", "s1"]);
    const [host, port] = s1.lanAddress.split(":");
    expect(members[2]).toEqual({
      Name: "s1",
      Addr: host,
      Port: Number(port),
      Tags: {
        role: "consul",
        dc: "dc1",
        id: expect.any(String),
        segment: "",
        port: "8300",
        raft_vsn: "3",
        // Cairn's own: a leader keeps a server naming another primary datacenter out of Raft.
        primary_dc: "dc1",
        expect: "3",
        vsn: "2",
        vsn_min: "2",
        vsn_max: "3",
        build: expect.stringMatching(/^1\.15\.\d+:cairn$/),
        ft_fs: "1",
        ft_si: "1",
        wan_join_port: s1.wanAddress?.split(":")[1],
      },
      Status: ALIVE,
      ProtocolMin: 1,
      ProtocolMax: 5,
      ProtocolCur: 2,
      DelegateMin: 2,
      DelegateMax: 5,
      DelegateCur: 4,
    });
    expect(members[0]?.Tags).toMatchObject({ role: "node", dc: "dc1", segment: "" });
    expect(members[0]?.Tags.port).toBeUndefined();

    const servers = c2.servers();
    expect(servers.map((s) => [s.name, s.role, s.rpcAddress])).toEqual([["s1", "server", `${host}:8300`]]);
    expect(c1.lanMembers().find((m) => m.name === "c2")).toMatchObject({ role: "client", datacenter: "dc1" });

    // Servers have a WAN pool (named node.dc); clients do not.
    expect(s1.members({ wan: true }).map((m) => m.Name)).toEqual(["s1.dc1"]);
    expect(c1.members({ wan: true })).toEqual([]);
    expect(c1.wanAddress).toBeUndefined();
    expect(s1.datacenters()).toEqual(["dc1"]);
    expect(c1.datacenters()).toEqual(["dc1"]);
    await expect(c1.join([s1.wanAddress ?? ""], { wan: true })).rejects.toThrow(/Must be a server/);

    const heard: unknown[] = [];
    c2.onUserMessage((p) => heard.push(p));
    s1.onUserMessage((p) => heard.push(p));
    c1.broadcast({ name: "deploy" });
    await until(() => heard.length === 2);
    expect(heard).toEqual([{ name: "deploy" }, { name: "deploy" }]);

    await until(() => s1.coordinateOf("c1") !== undefined);
    expect(s1.localCoordinate().Vec).toHaveLength(8);
    const stats = s1.stats();
    expect(stats.lan).toMatchObject({ members: 3, alive: 3 });
    expect(stats.wan).toMatchObject({ members: 1 });
  });

  it("a killed agent becomes failed; force-leave makes it left; prune forgets it", async () => {
    const a = await startMember("a");
    const b = await startMember("b");
    const c = await startMember("c");
    await b.join([a.lanAddress], { wan: false });
    await c.join([a.lanAddress], { wan: false });
    await until(() => a.lanMembers().filter((m) => m.status === "alive").length === 3);
    const changes: AgentMember[] = [];
    a.onChange((m) => changes.push(m));

    await c.close();
    await until(() => statusOf(a, "c") === FAILED && statusOf(b, "c") === FAILED);
    // Only c's changes: the three members share one event loop, and a stall of it can make b look suspect
    // to a for a moment (b refutes it), which is gossip doing its job, not what this test is about.
    const ofC = () => changes.filter((m) => m.name === "c");
    expect(ofC().map((m) => [m.name, m.status])).toEqual([["c", "failed"]]);
    await until(() => statusOf(a, "b") === ALIVE);
    expect(a.forceLeave("b", { prune: false, wan: false })).toBe(false); // a live member is sent the intent and refutes it
    expect(a.forceLeave("c", { prune: false, wan: false })).toBe(true);
    expect(statusOf(a, "c")).toBe(LEFT);
    await until(() => statusOf(b, "c") === LEFT);
    expect(a.forceLeave("c", { prune: true, wan: false })).toBe(true);
    expect(statusOf(a, "c")).toBeUndefined();
    expect(ofC().map((m) => m.status)).toEqual(["failed", "left", "left"]);
  });

  it("after a graceful leave others see left, and a restart from the same data dir does not rejoin", async () => {
    const a = await startMember("a");
    const dirB = tempDir();
    const dirC = tempDir();
    const b = await startMember("b", { dataDir: dirB });
    const c = await startMember("c", { dataDir: dirC });
    await b.join([a.lanAddress], { wan: false });
    await c.join([a.lanAddress], { wan: false });
    await until(() => a.lanMembers().filter((m) => m.status === "alive").length === 3);

    const leaving = b.leave();
    expect(statusOf(b, "b")).toBe(LEAVING);
    await leaving;
    await until(() => statusOf(a, "b") === LEFT && statusOf(c, "b") === LEFT);
    const b2 = await startMember("b", { dataDir: dirB });
    await new Promise((r) => setTimeout(r, 600));
    expect(b2.members({ wan: false }).map((m) => m.Name)).toEqual(["b"]);
    expect(statusOf(a, "b")).toBe(LEFT);

    // A crash (no leave) remembers the members: the restarted agent (same port) rejoins them by itself.
    const cPort = Number(c.lanAddress.split(":")[1]);
    await c.close();
    await until(() => statusOf(a, "c") === FAILED);
    const c2 = await startMember("c", { dataDir: dirC, config: { ports: portsWith(cPort) } });
    await until(() => statusOf(a, "c") === ALIVE && statusOf(c2, "a") === ALIVE);

    // An explicit join after the leave is remembered again.
    await b2.join([a.lanAddress], { wan: false });
    await until(() => statusOf(a, "b") === ALIVE);
    await b2.close();
    const b3 = await startMember("b", { dataDir: dirB });
    await until(() => statusOf(b3, "a") === ALIVE);
  });

  it("drops the frames of an agent with another gossip key", async () => {
    const key = randomBytes(32).toString("base64");
    const a = await startMember("a", { config: { encrypt: key } });
    const b = await startMember("b", { config: { encrypt: key } });
    const intruder = await startMember("x", { config: { encrypt: randomBytes(16).toString("base64") } });
    expect(await b.join([a.lanAddress], { wan: false })).toBe(1);
    await expect(intruder.join([a.lanAddress], { wan: false })).rejects.toThrow(/no agent answered/);
    expect(a.stats().lan.transport.dropped["wrong-key"]).toBeGreaterThan(0);
    expect(a.members({ wan: false }).map((m) => m.Name)).toEqual(["a", "b"]);
  });

  it("refuses bad join addresses, and retry_join keeps trying until a target answers", async () => {
    const a = await startMember("a");
    await expect(a.join(["not an address"], { wan: false })).rejects.toThrow(/invalid address/);
    await expect(a.join(["127.0.0.1:99999"], { wan: false })).rejects.toThrow(/invalid address/);

    // Reserve a port, free it, and let b retry_join it before anything listens there.
    const probe = await startMember("probe");
    const target = probe.lanAddress;
    await probe.close();
    const b = await startMember("b", { config: { retryJoin: [target], retryMax: 0 } });
    await new Promise((r) => setTimeout(r, 300));
    expect(b.members({ wan: false })).toHaveLength(1);
    const port = Number(target.split(":")[1]);
    const c = await startMember("c", { config: { ports: portsWith(port) } });
    await until(() => statusOf(b, "c") === ALIVE, 5000);
    expect(statusOf(c, "b")).toBe(ALIVE);

    const failures: Error[] = [];
    await startMember("d", {
      config: { retryJoin: [target.replace(/:\d+$/, ":1")], retryMax: 2 },
      onRetryJoinFailed: (err) => failures.push(err),
    });
    await until(() => failures.length === 1, 5000);
    expect(failures[0]?.message).toMatch(/retry_join: no agent answered after 2 attempts/);
    // start_join that nobody answers fails the start, as in Consul.
    await expect(startMember("e", { config: { startJoin: ["127.0.0.1:1"] } })).rejects.toThrow(
      /Failed to join/,
    );
  });

  it("serves the servers' join exchange on the LAN gossip port", async () => {
    const info: ServerInfo = {
      id: "id-s1",
      name: "s1",
      datacenter: "dc1",
      rpcAddress: "127.0.0.1:8300",
      joinAddress: "",
      hasState: false,
      voters: {},
      leader: null,
    };
    const heard: string[] = [];
    const log = (await import("pino")).default({ level: "silent" });
    const s1 = await startMember("s1", {
      serverPort: 8300,
      lanRoutes: {
        [JOIN_PATH]: joinRoute(
          {
            info: () => info,
            known: () => ["127.0.0.1:1"],
            hello: (from) => heard.push(from.name),
            join: async () => {},
          },
          log,
        ),
      },
    });
    const answer = await sayHello(s1.lanAddress, { ...info, id: "id-s2", name: "s2" }, 2000);
    expect(answer.info.name).toBe("s1");
    expect(answer.known).toEqual(["127.0.0.1:1"]);
    expect(heard).toEqual(["s2"]);
    // Gossip still works on the same port.
    const c = await startMember("c");
    expect(await c.join([s1.lanAddress], { wan: false })).toBe(1);
  });

  it("servers of two datacenters meet over the WAN and order datacenters by distance", async () => {
    const a = await startMember("a", { serverPort: 8300 });
    const b = await startMember("b", { serverPort: 8300, config: { datacenter: "dc2" } });
    const c = await startMember("c", { serverPort: 8300, config: { datacenter: "dc3" } });
    expect(await b.join([a.wanAddress ?? ""], { wan: true })).toBe(1);
    expect(await c.join([a.wanAddress ?? ""], { wan: true })).toBe(1);
    await until(() => a.members({ wan: true }).filter((m) => m.Status === ALIVE).length === 3);
    expect(a.members({ wan: true }).map((m) => m.Name)).toEqual(["a.dc1", "b.dc2", "c.dc3"]);
    // LAN pools stay apart.
    expect(a.members({ wan: false }).map((m) => m.Name)).toEqual(["a"]);
    await until(() => a.datacenterCoordinates()?.every((d) => d.Coordinates.length === 1) === true);
    expect(a.datacenters()[0]).toBe("dc1");
    expect([...a.datacenters()].sort()).toEqual(["dc1", "dc2", "dc3"]);
    expect(b.datacenters()[0]).toBe("dc2");
    const maps = a.datacenterCoordinates() ?? [];
    expect(maps.map((d) => d.Datacenter)).toEqual(a.datacenters());
    expect(maps.find((d) => d.Datacenter === "dc2")?.Coordinates[0]?.Node).toBe("b");
    expect(maps[0]?.AreaID).toBe("WAN");
  });

  it("a server joins other datacenters' servers through retry_join_wan", async () => {
    const a = await startMember("a", { serverPort: 8300 });
    const b = await startMember("b", {
      serverPort: 8300,
      config: { datacenter: "dc2", retryJoinWan: [a.wanAddress ?? ""] },
    });
    // a merges b's state before b hears a's answer: wait for both views.
    await until(() =>
      [a, b].every((m) => m.members({ wan: true }).filter((x) => x.Status === ALIVE).length === 2),
    );
    expect(b.members({ wan: true }).map((m) => m.Name)).toEqual(["a.dc1", "b.dc2"]);
  });
});

function portsWith(serfLan: number) {
  return { http: -1, https: -1, grpc: -1, dns: -1, server: 8300, serfLan, serfWan: 0 };
}
