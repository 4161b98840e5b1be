import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { sendBatched } from "../../src/tunnel/batched-send.js";

let server: WebSocketServer | undefined;
let client: WebSocket | undefined;

afterEach(async () => {
  client?.terminate();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = client = undefined;
});

/** A connected pair on loopback; `received` collects the server side's messages in arrival order. */
async function pair(): Promise<{ ws: WebSocket; received: Buffer[] }> {
  const received: Buffer[] = [];
  const s = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  server = s;
  s.on("connection", (peer) => peer.on("message", (data) => received.push(data as Buffer)));
  await new Promise<void>((resolve) => s.once("listening", () => resolve()));
  const ws = new WebSocket(`ws://127.0.0.1:${(s.address() as AddressInfo).port}`);
  client = ws;
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, received };
}

/** Counts the writes the socket hands to the kernel (one per uncorked batch). */
function countWrites(ws: WebSocket): () => number {
  const socket = (ws as unknown as { _socket: Socket & { _writev: (...a: unknown[]) => void } })._socket;
  let writes = 0;
  const writev = socket._writev.bind(socket);
  socket._writev = (...args: unknown[]) => {
    writes++;
    writev(...args);
  };
  return () => writes;
}

const frame = (i: number, size: number) => Buffer.alloc(size, i % 251);

describe("sendBatched", () => {
  it("sends a turn's small frames in one write at the end of the turn", async () => {
    const { ws, received } = await pair();
    const writes = countWrites(ws);
    for (let i = 0; i < 20; i++) sendBatched(ws, frame(i, 100));
    expect(writes()).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes()).toBe(1);
    await expect.poll(() => received.length).toBe(20);
    expect(received.map((b) => b[0])).toEqual([...Array(20).keys()]);
  });

  it("lets a long turn's frames out as they pass 16 KiB, in order, before the turn ends", async () => {
    const { ws, received } = await pair();
    const writes = countWrites(ws);
    for (let i = 0; i < 300; i++) sendBatched(ws, frame(i, 1000));
    // A server building hundreds of answers in one turn: the first ones are on their way already.
    expect(writes()).toBeGreaterThan(0);
    await expect.poll(() => received.length).toBe(300);
    expect(received.map((b) => b[0])).toEqual([...Array(300).keys()].map((i) => i % 251));
    expect(received.every((b) => b.byteLength === 1000)).toBe(true);
  });
});
