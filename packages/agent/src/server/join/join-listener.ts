import type { IncomingMessage } from "node:http";
import type { Logger } from "pino";
import type { WebSocket } from "ws";
import { type JoinAnswer, parseJoinRequest, type ServerInfo } from "./protocol.js";

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

/**
 * Handlers that answer only once `current()` has some: the route is served on the gossip port before the
 * server exists, and a peer asking too early gets an error and tries again on its next round.
 */
export function deferredJoinHandlers(current: () => JoinHandlers | undefined): JoinHandlers {
  const ready = (): JoinHandlers => {
    const handlers = current();
    if (!handlers) throw new Error("server is starting");
    return handlers;
  };
  return {
    info: () => ready().info(),
    known: () => ready().known(),
    hello: (from) => ready().hello(from),
    join: (id, address) => ready().join(id, address),
  };
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
