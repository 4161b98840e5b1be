import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { Message } from "../../src/core/types.js";
import { isRaftMessage } from "../../src/transport/message-shape.js";
import { ServerTransport } from "../../src/transport/server-transport.js";

describe("ServerTransport routes", () => {
  let transport: ServerTransport<Message> | undefined;
  afterEach(() => transport?.close());

  it("hands websockets on a route's path to it and refuses unknown paths", async () => {
    transport = await ServerTransport.start<Message>({
      nodeId: "a",
      clusterId: "c",
      host: "127.0.0.1",
      port: 0,
      logger: pino({ level: "silent" }),
      isMessage: isRaftMessage,
      handlers: {
        onMessages: () => {},
        onUnreachable: () => {},
        onSnapshot: () => Promise.reject(new Error()),
      },
      routes: { "/echo": (ws) => ws.on("message", (data) => ws.send(data)) },
    });
    const echo = new WebSocket(`ws://127.0.0.1:${transport.port}/echo?x=1`);
    const reply = await new Promise<string>((resolve, reject) => {
      echo.on("open", () => echo.send("hi"));
      echo.on("message", (data) => resolve(String(data)));
      echo.on("error", reject);
    });
    expect(reply).toBe("hi");
    echo.close();
    const refused = new WebSocket(`ws://127.0.0.1:${transport.port}/nope`);
    const status = await new Promise<number>((resolve) => {
      refused.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      refused.on("error", () => resolve(-1));
    });
    expect(status).toBe(400);
  });
});
