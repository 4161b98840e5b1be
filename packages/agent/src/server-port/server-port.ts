import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { RpcListener, refuseUpgrade, type TransportTls, type UpgradeHandler, upgradePath } from "@cairn/raft";
import type { Logger } from "pino";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * A server's RPC port and its route table: every websocket endpoint on the port (Raft's server connections,
 * the client agents' tunnel) registers its path here; upgrades on any other path are refused. The port, its
 * TLS and its connections belong to the agent; Raft is handed only the upgrades on its own path.
 */
export class ServerPort {
  private readonly routes = new Map<string, UpgradeHandler>();
  private readonly sockets = new Set<WebSocketServer>();

  private constructor(
    private readonly listener: RpcListener,
    private readonly log: Logger,
  ) {}

  /** Binds `host:port` (0 picks a free port); rejects with the bind error (EADDRINUSE) if it cannot. */
  static async open(
    host: string,
    port: number,
    tls: TransportTls | undefined,
    log: Logger,
  ): Promise<ServerPort> {
    let self: ServerPort | undefined;
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const route = self?.routes.get(upgradePath(req));
      if (route) route(req, socket, head);
      else refuseUpgrade(socket, 400);
    };
    self = new ServerPort(await RpcListener.start(host, port, tls, onUpgrade, log), log);
    return self;
  }

  get port(): number {
    return this.listener.port;
  }

  route(path: string, handler: UpgradeHandler): void {
    if (this.routes.has(path)) throw new Error(`a route for ${path} is already registered`);
    this.routes.set(path, handler);
  }

  /** Serves websockets on `path`: each accepted one is handed to `accept`, unless `refusal` says why not (403). */
  websocketRoute(
    path: string,
    accept: (ws: WebSocket, req: IncomingMessage) => void,
    maxPayload: number,
    refusal?: (req: IncomingMessage) => string | undefined,
  ): void {
    const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload });
    wss.on("connection", accept);
    this.sockets.add(wss);
    this.route(path, (req, socket, head) => {
      const reason = refusal?.(req);
      if (reason !== undefined) {
        this.log.warn(
          { path, remote: `${req.socket.remoteAddress}:${req.socket.remotePort}`, reason },
          "refused a connection",
        );
        refuseUpgrade(socket, 403);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
    });
  }

  /** Ends every connection and stops listening. */
  async close(): Promise<void> {
    for (const wss of this.sockets) {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
    await this.listener.close();
  }
}
