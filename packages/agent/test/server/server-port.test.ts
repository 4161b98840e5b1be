import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { ServerPort } from "../../src/server-port/server-port.js";

describe("server RPC port routes", () => {
  let port: ServerPort | undefined;
  afterEach(() => port?.close());

  it("hands websockets on a route's path to it and refuses unknown paths", async () => {
    port = await ServerPort.open("127.0.0.1", 0, undefined, pino({ level: "silent" }));
    port.websocketRoute("/echo", (ws) => ws.on("message", (data) => ws.send(data)), 1024);
    const echo = new WebSocket(`ws://127.0.0.1:${port.port}/echo?x=1`);
    const reply = await new Promise<string>((resolve, reject) => {
      echo.on("open", () => echo.send("hi"));
      echo.on("message", (data) => resolve(String(data)));
      echo.on("error", reject);
    });
    expect(reply).toBe("hi");
    echo.close();
    const refused = new WebSocket(`ws://127.0.0.1:${port.port}/nope`);
    const status = await new Promise<number>((resolve) => {
      refused.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      refused.on("error", () => resolve(-1));
    });
    expect(status).toBe(400);
  });

  it("closes with a websocket still open", async () => {
    port = await ServerPort.open("127.0.0.1", 0, undefined, pino({ level: "silent" }));
    port.websocketRoute("/hold", () => {}, 1024);
    const held = new WebSocket(`ws://127.0.0.1:${port.port}/hold`);
    await new Promise<void>((resolve, reject) => {
      held.on("open", () => resolve());
      held.on("error", reject);
    });
    const closed = new Promise<void>((resolve) => held.on("close", () => resolve()));
    await port.close();
    port = undefined;
    await closed;
  });
});
