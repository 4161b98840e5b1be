// What a dialer built from `dialTarget` puts on the wire: a frame with a zero masking key, its payload in
// the clear (servers, tunnels and server RPC are our own processes, not browsers).
import { createHash } from "node:crypto";
import { once } from "node:events";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { dialTarget } from "../../src/transport/tls.js";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A bare TCP server that accepts one websocket upgrade and resolves the bytes of the first frame. */
async function rawAcceptor(): Promise<{ port: number; firstFrame: Promise<Buffer> }> {
  let sawFrame!: (bytes: Buffer) => void;
  const firstFrame = new Promise<Buffer>((resolve) => {
    sawFrame = resolve;
  });
  const server = createServer((socket: Socket) => {
    let buffered = Buffer.alloc(0);
    let upgraded = false;
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!upgraded) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const key = /sec-websocket-key: *(\S+)/i.exec(buffered.subarray(0, end).toString())?.[1] ?? "";
        const accept = createHash("sha1")
          .update(key + GUID)
          .digest("base64");
        socket.write(
          `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
        );
        upgraded = true;
        buffered = buffered.subarray(end + 4);
      }
      if (buffered.length >= 2) sawFrame(buffered);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  closers.push(() => server.close());
  return { port: (server.address() as AddressInfo).port, firstFrame };
}

describe("dialTarget", () => {
  it("dials with a zero masking key, so a frame's payload goes as it is", async () => {
    const { port, firstFrame } = await rawAcceptor();
    const target = dialTarget(`127.0.0.1:${port}`, "/x", undefined);
    const ws = new WebSocket(target.url, target.options);
    closers.push(() => ws.terminate());
    await once(ws, "open");
    const payload = Buffer.from("some raft bytes");
    ws.send(payload);
    const frame = await firstFrame;
    expect(frame[1]! & 0x80).toBe(0x80); // masked, as RFC 6455 requires of a client
    expect(frame[1]! & 0x7f).toBe(payload.length);
    expect([...frame.subarray(2, 6)]).toEqual([0, 0, 0, 0]); // with a zero key
    expect(frame.subarray(6, 6 + payload.length)).toEqual(payload);
  });

  it("keeps the zero key when dialing over TLS", () => {
    const target = dialTarget("127.0.0.1:1", "/x", {
      context: {} as never,
      verify: false,
    });
    const mask = Buffer.from([1, 2, 3, 4]);
    target.options.generateMask?.(mask);
    expect(target.url.startsWith("wss://")).toBe(true);
    expect([...mask]).toEqual([0, 0, 0, 0]);
  });
});
