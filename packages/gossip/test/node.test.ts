import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { FrameCodec, GossipNode, type GossipNodeOptions, lanConfig, type Member } from "../src/index.js";

const fast = lanConfig({
  probeInterval: 200,
  probeTimeout: 100,
  gossipInterval: 50,
  suspicionMult: 2,
  pushPullInterval: 2000,
});
const started: GossipNode[] = [];

async function node(
  name: string,
  extra: Partial<Pick<GossipNodeOptions, "encrypt" | "tags" | "routes">> = {},
): Promise<GossipNode> {
  const n = new GossipNode({ name, config: fast, ...extra });
  await n.start();
  started.push(n);
  return n;
}

async function until(check: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

function stateOf(observer: GossipNode, name: string): string | undefined {
  return observer.members().find((m) => m.name === name)?.state;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((n) => n.close()));
});

describe("GossipNode over real ws on loopback", () => {
  it("joins three nodes, carries tags and coordinates, and detects a killed one as failed", async () => {
    const a = await node("a", { tags: { role: "server", dc: "dc1" } });
    const b = await node("b");
    const c = await node("c");
    expect(await b.join([a.address])).toBe(1);
    expect(await c.join([a.address])).toBe(1);
    await until(() => [a, b, c].every((n) => n.members().filter((m) => m.state === "alive").length === 3));
    expect(c.members().find((m) => m.name === "a")?.tags).toEqual({ role: "server", dc: "dc1" });
    await until(() => a.coordinateOf("b") !== undefined);
    expect(a.coordinate().Vec).toHaveLength(8);

    const failed: Member[] = [];
    a.on("member-failed", (m) => failed.push(m));
    await c.close();
    await until(() => stateOf(a, "c") === "dead" && stateOf(b, "c") === "dead");
    expect(failed.map((m) => m.name)).toEqual(["c"]);
  });

  it("sees a graceful leave as left and force-leave moves a failed member to left", async () => {
    const a = await node("a");
    const b = await node("b");
    const c = await node("c");
    await b.join([a.address]);
    await c.join([a.address]);
    await until(() => a.members().filter((m) => m.state === "alive").length === 3);
    const left: string[] = [];
    a.on("member-leave", (m) => left.push(m.name));
    await b.leave();
    await until(() => stateOf(a, "b") === "left" && stateOf(c, "b") === "left");
    expect(left).toEqual(["b"]);

    await c.close();
    await until(() => stateOf(a, "c") === "dead");
    expect(a.forceLeave("a")).toBe(false);
    expect(a.forceLeave("c")).toBe(true);
    expect(stateOf(a, "c")).toBe("left");
    expect(a.forceLeave("c", { prune: true })).toBe(true);
    expect(stateOf(a, "c")).toBeUndefined();
  });

  it("force-leave of a live member sends it the leave intent, which it refutes: it stays alive", async () => {
    const a = await node("a");
    const b = await node("b");
    const c = await node("c");
    await b.join([a.address]);
    await c.join([a.address]);
    await until(() => c.members().filter((m) => m.state === "alive").length === 3);
    const before = b.members().find((m) => m.name === "b")!.incarnation;
    const left: string[] = [];
    for (const n of [a, c]) n.on("member-leave", (m) => left.push(m.name));
    expect(a.forceLeave("b")).toBe(false);
    // The refutation is a newer incarnation of b, gossiped to everyone.
    await until(
      () =>
        (a.members().find((m) => m.name === "b")?.incarnation ?? 0) > before &&
        (c.members().find((m) => m.name === "b")?.incarnation ?? 0) > before,
    );
    expect([stateOf(a, "b"), stateOf(c, "b")]).toEqual(["alive", "alive"]);
    expect(left).toEqual([]);
  });

  it("propagates tag updates and user broadcasts", async () => {
    const a = await node("a");
    const b = await node("b");
    await b.join([a.address]);
    const messages: unknown[] = [];
    b.on("user-message", (m) => messages.push(m.payload));
    a.setTags({ role: "client", build: "0.2.0" });
    a.broadcast({ event: "deploy" });
    await until(
      () => b.members().find((m) => m.name === "a")?.tags.build === "0.2.0" && messages.length === 1,
    );
    expect(messages).toEqual([{ event: "deploy" }]);
  });

  it("encrypts with a shared key; a wrong key's frames are dropped and counted", async () => {
    const key = randomBytes(32).toString("base64");
    const a = await node("a", { encrypt: key });
    const b = await node("b", { encrypt: key });
    expect(await b.join([a.address])).toBe(1);
    // The push-pull reply, and a's later probes, travel back on the connection b opened.
    expect(a.stats().transport).toMatchObject({ outboundConnections: 0, inboundConnections: 1 });
    const intruder = await node("x", { encrypt: randomBytes(16).toString("base64") });
    expect(await intruder.join([a.address], 500)).toBe(0);
    expect(a.stats().transport.dropped["wrong-key"]).toBeGreaterThan(0);
    expect(
      a
        .members()
        .map((m) => m.name)
        .sort(),
    ).toEqual(["a", "b"]);
    expect(() => new GossipNode({ name: "bad", encrypt: "c2hvcnQ=" })).toThrow(/16, 24 or 32 bytes/);
  });

  it("drops malformed, unknown-version and impossible frames, counts them, and keeps serving", async () => {
    const a = await node("a");
    const socket = new WebSocket(`ws://${a.address}/gossip`);
    await new Promise((resolve) => socket.once("open", resolve));
    const codec = new FrameCodec();
    socket.send(Buffer.from([1, 0xc1, 0xff, 0x00]));
    socket.send("not binary");
    socket.send(Buffer.from([9, 1, 2, 3]));
    const impossible = codec.encode("127.0.0.1:1", [
      { t: "alive", node: "evil", address: "x:1", incarnation: -1, tags: {} },
    ]);
    socket.send(impossible);
    const wrongState = codec.encode("127.0.0.1:1", [
      {
        t: "push-pull",
        seq: 1,
        reply: false,
        join: true,
        states: [{ node: "evil", address: "x:1", incarnation: 1, state: "zombie" as "alive", tags: {} }],
      },
    ]);
    socket.send(wrongState);
    await until(() => {
      const { dropped } = a.stats().transport;
      return dropped.malformed === 2 && dropped["unknown-version"] === 1 && dropped.invalid === 2;
    });
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
    const b = await node("b");
    expect(await b.join([a.address])).toBe(1);
    expect(a.members().some((m) => m.name === "evil")).toBe(false);
  });

  it("serves extra WebSocket routes on the gossip port and refuses unknown paths", async () => {
    const a = await node("a", {
      routes: {
        "/echo": (ws, req) => ws.on("message", (data) => ws.send(`${req.url} ${String(data)}`)),
      },
    });
    const echo = new WebSocket(`ws://${a.address}/echo?x=1`);
    await new Promise((resolve) => echo.once("open", resolve));
    echo.send("hi");
    const reply = await new Promise<string>((resolve) => echo.once("message", (d) => resolve(String(d))));
    expect(reply).toBe("/echo?x=1 hi");
    echo.close();

    const unknown = new WebSocket(`ws://${a.address}/nope`);
    unknown.on("error", () => {});
    const status = await new Promise<number>((resolve) =>
      unknown.once("unexpected-response", (req, res) => {
        req.destroy();
        resolve(res.statusCode ?? 0);
      }),
    );
    expect(status).toBe(404);
    const b = await node("b");
    expect(await b.join([a.address])).toBe(1);
    const plain = await fetch(`http://${a.address}/`);
    expect(plain.status).toBe(426);
    await expect(new GossipNode({ name: "c", routes: { "/gossip": () => {} } }).start()).rejects.toThrow(
      /gossip path/,
    );
  });

  it("gossips over IPv6 with bracketed addresses", async () => {
    const a = new GossipNode({ name: "a", bindHost: "::1", config: fast });
    const b = new GossipNode({ name: "b", bindHost: "::1", config: fast });
    await a.start();
    await b.start();
    started.push(a, b);
    expect(a.address).toMatch(/^\[::1\]:\d+$/);
    expect(await b.join([a.address])).toBe(1);
    expect(
      a
        .members()
        .map((m) => m.address)
        .sort(),
    ).toEqual([a.address, b.address].sort());
  });
});
