import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { type WebSocket, WebSocketServer } from "ws";
import { JOIN_PATH, type JoinAnswer, parseJoinRequest, type ServerInfo } from "./protocol.js";

export interface JoinHandlers {
  /** This server's current facts. */
  info(): ServerInfo;
  /** Join addresses of the other servers this one knows. */
  known(): string[];
  /** Another server said hello. */
  hello(from: ServerInfo): void;
  /** Add `id` at `address` as a non-voter (forwarded to the leader when this server is not it). */
  join(id: string, address: string): Promise<void>;
}

const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * The join exchange as a WebSocket route (`lanRoutes[JOIN_PATH]` of the gossip port): one request, one
 * answer, per connection.
 */
export function joinRoute(
  handlers: JoinHandlers,
  log: Logger,
): (ws: WebSocket, req: IncomingMessage) => void {
  return (ws) => {
    // A peer sending garbage frames ends its own connection; it must not take the process with it.
    ws.on("error", (err) => log.debug({ err: err.message }, "join connection error"));
    ws.once("message", (data) => {
      const text = String(data);
      if (text.length > MAX_REQUEST_BYTES) {
        ws.close(1009, "join request too large");
        return;
      }
      void answer(text, handlers).then(
        (reply) => ws.send(JSON.stringify(reply), () => ws.close()),
        (err: Error) => ws.send(JSON.stringify({ ok: false, error: err.message }), () => ws.close()),
      );
    });
  };
}

/** The join exchange on a port of its own (until the gossip port serves it through `joinRoute`). */
export class JoinListener {
  private constructor(
    private readonly server: WebSocketServer,
    readonly port: number,
  ) {}

  static async start(host: string, port: number, handlers: JoinHandlers, log: Logger): Promise<JoinListener> {
    const server = new WebSocketServer({ host, port, path: JOIN_PATH, maxPayload: MAX_REQUEST_BYTES });
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
    server.on("error", (err) => log.error({ err: err.message }, "join listener error"));
    const route = joinRoute(handlers, log);
    server.on("connection", (ws, req) => route(ws, req));
    return new JoinListener(server, (server.address() as AddressInfo).port);
  }

  close(): Promise<void> {
    for (const ws of this.server.clients) ws.terminate();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function answer(text: string, handlers: JoinHandlers): Promise<JoinAnswer> {
  const request = parseJoinRequest(text);
  if (!request) return { ok: false, error: "malformed join request" };
  if (request.op === "hello") {
    handlers.hello(request.from);
    return { ok: true, info: handlers.info(), known: handlers.known() };
  }
  await handlers.join(request.id, request.address);
  return { ok: true, joined: true };
}
