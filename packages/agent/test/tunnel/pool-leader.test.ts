// A client's tunnel pool sends what must reach the leader straight to the leader the servers report on the
// tunnel, and stale reads and agent RPCs to its own server. The servers here are the real tunnel route on
// loopback websockets whose HTTP app only says which server answered, so the leader can be set at will.
import { type AddressInfo, createServer } from "node:net";
import pino from "pino";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { WebSocketServer } from "ws";
import { type ServerRef, TUNNEL_PATH, TunnelPool } from "../../src/tunnel/index.js";
import { tunnelRoute } from "../../src/tunnel/server-route.js";

const log = pino({ level: "silent" });

interface FakeServer {
  ref: ServerRef;
  /** Paths of the requests that reached this server, in order. */
  arrived: string[];
  /** Requests for this path are held until `release`. */
  stall?: string;
  /** Answers the held requests. */
  release(): void;
  /** What this server alone believes about the leader, when it differs from the others. */
  belief?: { id: string | null; term: number };
  /** Tunnel connections open to this server. */
  connections(): number;
  /** Drops every connection and stops listening. */
  stop(): Promise<void>;
}

/** The leader every server reports (a node ID, null for none) and its term, as one cluster's would agree on. */
let leader: { id: string | null; term: number } = { id: null, term: 1 };
const leaderWatchers = new Set<() => void>();
/** A new leader in a new term, told by every server to its clients. */
function elect(id: string | null): void {
  leader = { id, term: leader.term + 1 };
  for (const tell of leaderWatchers) tell();
}
const started: FakeServer[] = [];
const pools: TunnelPool[] = [];

afterEach(async () => {
  for (const p of pools.splice(0)) p.close();
  await Promise.all(started.splice(0).map((s) => s.stop()));
  leader = { id: null, term: 1 };
  leaderWatchers.clear();
});

async function server(name: string): Promise<FakeServer> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, path: TUNNEL_PATH });
  await new Promise((resolve) => wss.once("listening", resolve));
  const { port } = wss.address() as AddressInfo;
  const s: FakeServer = {
    ref: { name, rpcAddress: `127.0.0.1:${port}`, id: `id-${name}` },
    arrived: [],
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    connections: () => wss.clients.size,
    stop: async () => {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
    },
  };
  const held: (() => void)[] = [];
  const fetch = (request: Request): Response | Promise<Response> => {
    const { pathname } = new URL(request.url);
    s.arrived.push(pathname);
    if (pathname !== s.stall) return new Response(name);
    return new Promise<Response>((resolve) => held.push(() => resolve(new Response(name))));
  };
  const source = {
    current: () => s.belief ?? leader,
    subscribe: (tell: () => void) => leaderWatchers.add(tell),
  };
  wss.on("connection", tunnelRoute(fetch, { leader: source, calls: { whoami: async () => name } }));
  started.push(s);
  return s;
}

function pool(servers: ServerRef[], random = () => 0, connectTimeoutMs?: number): TunnelPool {
  const p = new TunnelPool({
    servers: () => servers,
    log,
    random,
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
  });
  pools.push(p);
  return p;
}

const get = (p: TunnelPool, path: string) => p.forward(new Request(`http://client${path}`)).then(answer);
const put = (p: TunnelPool, path: string) =>
  p.forward(new Request(`http://client${path}`, { method: "PUT", body: "x" })).then(answer);
const answer = async (r: Response) => `${r.status} ${await r.text()}`;

/** Two servers and a pool connected to the first of them, which names the second as the leader. */
async function setup(): Promise<{ p: TunnelPool; own: FakeServer; other: FakeServer }> {
  const [a, b] = await Promise.all([server("a"), server("b")]);
  const p = pool([a!.ref, b!.ref]);
  const first = await get(p, "/v1/status/leader?stale");
  const own = first.endsWith(" a") ? a! : b!;
  const other = own === a ? b! : a!;
  expect(await p.currentServer()).toBe(own.ref.name);
  return { p, own, other };
}

describe("TunnelPool and the leader", () => {
  it("sends writes and default reads to the reported leader, stale reads and RPCs to its own server", async () => {
    const { p, own, other } = await setup();
    await electAndConnect(p, other);
    expect(await put(p, "/v1/kv/key")).toBe(`200 ${other.ref.name}`);
    expect(await get(p, "/v1/kv/key")).toBe(`200 ${other.ref.name}`);
    expect(await get(p, "/v1/kv/key?consistent")).toBe(`200 ${other.ref.name}`);
    expect(await get(p, "/v1/kv/key?index=1&wait=1s")).toBe(`200 ${other.ref.name}`);
    expect(await get(p, "/v1/kv/key?stale")).toBe(`200 ${own.ref.name}`);
    expect(await get(p, "/v1/kv/key?max_stale=3s")).toBe(`200 ${own.ref.name}`);
    expect(await p.call("whoami", [])).toBe(own.ref.name);
    expect(await p.currentServer()).toBe(own.ref.name);
    expect(p.leaderServer()).toBe(other.ref.name);
  });

  it("hears the leader as soon as it connects", async () => {
    const [a, b] = await Promise.all([server("a"), server("b")]);
    elect(b!.ref.id!);
    // This shuffle leaves the servers in order: the pool's own server is a.
    const p = pool([a!.ref, b!.ref], () => 0.99);
    expect(await get(p, "/v1/status/leader?stale")).toBe("200 a");
    await until(() => p.reportedLeader === b!.ref.id);
    // The first request for the leader finds no connection to it yet, goes the usual way and has it dialed.
    expect(await put(p, "/v1/kv/first")).toBe("200 a");
    await until(() => p.leaderServer() === "b");
    expect(await put(p, "/v1/kv/key")).toBe("200 b");
  });

  it("keeps one connection when its own server leads, and none to a leader gossip does not list", async () => {
    const { p, own, other } = await setup();
    await electAndHear(p, own.ref.id!);
    expect(await put(p, "/v1/kv/key")).toBe(`200 ${own.ref.name}`);
    expect(p.leaderServer()).toBeUndefined();
    await electAndHear(p, "id-unknown");
    expect(await put(p, "/v1/kv/key")).toBe(`200 ${own.ref.name}`);
    expect(p.leaderServer()).toBeUndefined();
    await electAndHear(p, null);
    expect(await put(p, "/v1/kv/key")).toBe(`200 ${own.ref.name}`);
    expect(other.arrived).toEqual([]);
  });

  it("follows a new leader: writes sent to the former one finish there, reads are sent again", async () => {
    const servers = await Promise.all([server("a"), server("b"), server("c")]);
    const p = pool(servers.map((s) => s.ref));
    const first = await get(p, "/v1/status/leader?stale");
    const own = servers.find((s) => first.endsWith(` ${s.ref.name}`))!;
    const [one, two] = servers.filter((s) => s !== own) as [FakeServer, FakeServer];
    await electAndConnect(p, one);
    expect(await put(p, "/v1/kv/one")).toBe(`200 ${one.ref.name}`);
    one.stall = "/v1/kv/held";
    const heldRead = get(p, "/v1/kv/held");
    const heldWrite = put(p, "/v1/kv/held");
    await until(() => one.arrived.filter((path) => path === "/v1/kv/held").length === 2);
    await electAndConnect(p, two);
    expect(await put(p, "/v1/kv/two")).toBe(`200 ${two.ref.name}`);
    expect(p.leaderServer()).toBe(two.ref.name);
    expect(own.arrived).not.toContain("/v1/kv/two");
    // The read went again the usual way; the write stays with the former leader, which keeps the
    // connection open until it answers.
    expect(await heldRead).toBe(`200 ${own.ref.name}`);
    expect(one.connections()).toBe(1);
    one.release();
    expect(await heldWrite).toBe(`200 ${one.ref.name}`);
    await until(() => one.connections() === 0);
  });

  it("takes the usual way when the leader cannot be reached, and answers 500 for a write lost there", async () => {
    const { p, own, other } = await setup();
    await electAndConnect(p, other);
    expect(await put(p, "/v1/kv/first")).toBe(`200 ${other.ref.name}`);
    other.stall = "/v1/kv/stalled";
    const lost = put(p, "/v1/kv/stalled");
    await until(() => other.arrived.includes("/v1/kv/stalled"));
    await other.stop();
    expect(await lost).toMatch(/^500 rpc error making call: .*may or may not have been applied$/);
    // Requests that never reached it go to the pool's own server.
    expect(await put(p, "/v1/kv/after")).toBe(`200 ${own.ref.name}`);
    expect(await get(p, "/v1/kv/after")).toBe(`200 ${own.ref.name}`);
    expect(p.leaderServer()).toBeUndefined();
  });

  it("never makes a request wait on dialing the leader, even one that never answers", async () => {
    const a = await server("a");
    // Accepts TCP connections and never answers the websocket handshake: a dial to it hangs until the
    // pool's connect timeout (set beyond the test's own timeout, so a request that waited would fail it).
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => {
      silent.close();
    });
    const { port } = silent.address() as AddressInfo;
    const gone: ServerRef = { name: "gone", rpcAddress: `127.0.0.1:${port}`, id: "id-gone" };
    const p = pool([a.ref, gone], () => 0.99, 60_000);
    expect(await get(p, "/v1/status/leader?stale")).toBe("200 a");
    await electAndHear(p, "id-gone");
    for (let i = 0; i < 3; i++) expect(await put(p, `/v1/kv/${i}`)).toBe("200 a");
    expect(p.leaderServer()).toBeUndefined();
  });

  it("believes the news of the later term when two servers disagree", async () => {
    const { p, own, other } = await setup();
    await electAndConnect(p, other);
    expect(await put(p, "/v1/kv/one")).toBe(`200 ${other.ref.name}`);
    // The pool's own server still believes in the leader of the term before (it was cut off, say).
    own.belief = { id: own.ref.id!, term: leader.term - 1 };
    for (const tell of leaderWatchers) tell();
    expect(await get(p, "/v1/kv/one?stale")).toBe(`200 ${own.ref.name}`);
    expect(p.reportedLeader).toBe(other.ref.id);
    expect(await put(p, "/v1/kv/two")).toBe(`200 ${other.ref.name}`);
  });

  it("drops the leader's connection when gossip reports that server gone", async () => {
    const { p, own, other } = await setup();
    await electAndConnect(p, other);
    expect(await put(p, "/v1/kv/one")).toBe(`200 ${other.ref.name}`);
    p.serverGone(other.ref.name);
    expect(p.leaderServer()).toBeUndefined();
    expect(await put(p, "/v1/kv/two")).toBe(`200 ${own.ref.name}`);
    await until(() => other.connections() === 0);
  });
});

/** Elects `id` on every server and waits until the pool has heard of it. */
async function electAndHear(p: TunnelPool, id: string | null): Promise<void> {
  elect(id);
  await until(() => p.reportedLeader === (id ?? ""));
}

/** Elects `s` and waits until the pool has its connection to it open (dialed in the background). */
async function electAndConnect(p: TunnelPool, s: FakeServer): Promise<void> {
  await electAndHear(p, s.ref.id!);
  await until(() => p.leaderServer() === s.ref.name);
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
