// The join service over a real WebSocket on loopback: hello answers, join requests, refusals.
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { askToJoin, sayHello } from "../../../src/server/join/join-client.js";
import { joinRoute } from "../../../src/server/join/join-listener.js";
import { JOIN_PATH, type ServerInfo } from "../../../src/server/join/protocol.js";

const info = (id: string): ServerInfo => ({
  id,
  name: `n${id}`,
  datacenter: "dc1",
  rpcAddress: `127.0.0.1:1${id}`,
  joinAddress: `127.0.0.1:2${id}`,
  hasState: id === "1",
  voters: {},
  leader: null,
});

const heard: ServerInfo[] = [];
const joins: string[] = [];
let listener: WebSocketServer;
let address = "";

beforeAll(async () => {
  listener = new WebSocketServer({ host: "127.0.0.1", port: 0, path: JOIN_PATH });
  await new Promise((resolve) => listener.once("listening", resolve));
  const route = joinRoute(
    {
      info: () => info("1"),
      known: () => ["127.0.0.1:9999"],
      hello: (from) => void heard.push(from),
      join: async (id, rpc) => {
        if (id === "refused") throw new Error("No cluster leader");
        joins.push(`${id}@${rpc}`);
      },
    },
    pino({ level: "silent" }),
  );
  listener.on("connection", route);
  address = `127.0.0.1:${(listener.address() as AddressInfo).port}`;
});
afterAll(() => {
  for (const ws of listener.clients) ws.terminate();
  return new Promise<void>((resolve) => listener.close(() => resolve()));
});

describe("join service", () => {
  it("answers a hello with its facts and the servers it knows, and records the caller", async () => {
    const answer = await sayHello(address, info("2"), 2_000);
    expect(answer.info.id).toBe("1");
    expect(answer.known).toEqual(["127.0.0.1:9999"]);
    expect(heard.map((h) => h.id)).toEqual(["2"]);
  });

  it("passes join requests on and relays a refusal as an error", async () => {
    await askToJoin(address, "3", "127.0.0.1:13", 2_000);
    expect(joins).toEqual(["3@127.0.0.1:13"]);
    await expect(askToJoin(address, "refused", "127.0.0.1:14", 2_000)).rejects.toThrow("No cluster leader");
  });

  it("refuses a malformed request with a reason", async () => {
    const ws = new WebSocket(`ws://${address}${JOIN_PATH}`);
    await new Promise((ok) => ws.once("open", ok));
    ws.send('{"op":"hello","from":{"id":1}}');
    const reply = await new Promise<string>((ok) => ws.once("message", (d) => ok(String(d))));
    expect(JSON.parse(reply)).toEqual({ ok: false, error: "malformed join request" });
    ws.close();
  });

  it("drops an oversized request and keeps serving", async () => {
    const ws = new WebSocket(`ws://${address}${JOIN_PATH}`);
    ws.on("error", () => {});
    await new Promise((ok) => ws.once("open", ok));
    ws.send("x".repeat(100_000));
    await new Promise((ok) => ws.once("close", ok));
    expect((await sayHello(address, info("4"), 2_000)).info.id).toBe("1");
  });

  it("fails fast when nobody listens", async () => {
    await expect(sayHello("127.0.0.1:1", info("2"), 1_000)).rejects.toThrow();
  });
});
