import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import { WebSocketServer } from "ws";
import { InboundConnection, type InboundContext } from "./inbound-connection.js";
import { RpcListener, refuseUpgrade, upgradePath } from "./listener.js";
import {
  defaultLimits,
  SERVER_PATH,
  type TransportHandlers,
  type TransportLimits,
  type TransportOptions,
} from "./options.js";
import { type LinkContext, PeerLink } from "./peer-link.js";
import { RpcError } from "./rpc-error.js";

/**
 * Connections between the servers of one cluster. Each server dials every peer it knows once (its outbound
 * link carries what it initiates) and accepts the peers' links (on which it answers). Raft messages sent in
 * one loop turn leave in one frame per peer; a peer that is down or slow costs a bounded amount of memory,
 * and messages that cannot be queued are dropped with `onUnreachable`, which Raft tolerates by design.
 */
export class ServerTransport<M> {
  /** Where inbound traffic goes; until `attach` (or `options.handlers`) it is dropped. */
  private handlers: TransportHandlers<M>;
  private readonly links = new Map<string, PeerLink<M>>();
  private readonly inbound = new Set<InboundConnection<M>>();
  private readonly linkContext: LinkContext;

  private constructor(
    private readonly server: WebSocketServer,
    /** Only when this transport listens on a port of its own (see `start`). */
    private readonly listener: RpcListener | undefined,
    private readonly options: TransportOptions<M>,
    readonly limits: TransportLimits,
    readonly address: string,
  ) {
    this.handlers = options.handlers ?? detached;
    const handlers: TransportHandlers<M> = {
      onMessages: (from, messages) => this.handlers.onMessages(from, messages),
      onUnreachable: (peer) => this.handlers.onUnreachable(peer),
      onRefused: (peer) => this.handlers.onRefused?.(peer),
      onSnapshot: (from, message, size) => this.handlers.onSnapshot(from, message, size),
      onPeerAddress: (peer, address) => this.handlers.onPeerAddress?.(peer, address),
    };
    this.linkContext = {
      nodeId: options.nodeId,
      clusterId: options.clusterId,
      advertiseAddress: address,
      ...(options.tls ? { tls: options.tls } : {}),
      logger: options.logger,
      limits,
      random: options.random ?? Math.random,
      onUnreachable: handlers.onUnreachable,
      onRefused: (peer) => handlers.onRefused?.(peer),
    };
    const inboundContext: InboundContext<M> = {
      nodeId: options.nodeId,
      clusterId: options.clusterId,
      logger: options.logger,
      limits,
      isMessage: options.isMessage,
      handlers,
    };
    server.on("connection", (ws, req) => {
      const conn = new InboundConnection<M>(
        ws,
        inboundContext,
        `${req.socket.remoteAddress}:${req.socket.remotePort}`,
      );
      this.inbound.add(conn);
      ws.on("close", () => this.inbound.delete(conn));
    });
  }

  /**
   * Starts listening on a port of its own that serves only server connections; resolves once it is bound.
   * A server agent instead owns its RPC port and hands the upgrades on `SERVER_PATH` to `create`'s `upgrade`.
   */
  static async start<M>(
    options: TransportOptions<M> & { host: string; port: number },
  ): Promise<ServerTransport<M>> {
    let transport: ServerTransport<M> | undefined;
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (upgradePath(req) === SERVER_PATH && transport) transport.upgrade(req, socket, head);
      else refuseUpgrade(socket, 400);
    };
    const listener = await RpcListener.start(
      options.host,
      options.port,
      options.tls,
      onUpgrade,
      options.logger,
    );
    transport = new ServerTransport(
      newServer(options),
      listener,
      options,
      { ...defaultLimits, ...options.limits },
      options.advertiseAddress ?? `${options.host}:${listener.port}`,
    );
    return transport;
  }

  /** A transport without a listener: whoever owns the port hands it the upgrades on `SERVER_PATH`. */
  static create<M>(options: TransportOptions<M> & { advertiseAddress: string }): ServerTransport<M> {
    return new ServerTransport(
      newServer(options),
      undefined,
      options,
      { ...defaultLimits, ...options.limits },
      options.advertiseAddress,
    );
  }

  /** Sends inbound traffic to `handlers` from now on (the driver attaches itself once it exists). */
  attach(handlers: TransportHandlers<M>): void {
    this.handlers = handlers;
  }

  /** The port of its own listener (see `start`). */
  get port(): number {
    if (!this.listener) throw new Error("this transport has no listener of its own");
    return this.listener.port;
  }

  /** Takes a websocket upgrade request on `SERVER_PATH`: a server connecting. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refusal = serverRefusal(this.options.tls, req);
    if (refusal) {
      this.options.logger.warn(
        { remote: remoteOf(req), reason: refusal.reason },
        "refused a server connection",
      );
      refuseUpgrade(socket, 403);
      return;
    }
    this.server.handleUpgrade(req, socket, head, (ws) => this.server.emit("connection", ws, req));
  }

  /** Adds a peer or updates its address; a link to it is dialed at once. */
  setPeer(id: string, address: string): void {
    if (id === this.options.nodeId) return;
    const link = this.links.get(id);
    if (link) link.setAddress(address);
    else this.links.set(id, new PeerLink<M>(id, address, this.linkContext));
  }

  removePeer(id: string): void {
    this.links.get(id)?.close();
    this.links.delete(id);
  }

  hasPeer(id: string): boolean {
    return this.links.has(id);
  }

  peers(): string[] {
    return [...this.links.keys()];
  }

  isConnected(peer: string): boolean {
    return this.links.get(peer)?.connected ?? false;
  }

  /** Queues a Raft message for `peer`; it leaves with the others queued in this loop turn. */
  send(peer: string, message: M): void {
    const link = this.links.get(peer);
    if (link) link.send(message);
    else this.handlers.onUnreachable(peer);
  }

  /** Streams a snapshot file to `peer`; resolves once the peer has it durably. */
  sendSnapshot(peer: string, message: M, path: string): Promise<void> {
    const link = this.links.get(peer);
    if (!link) return Promise.reject(new RpcError("unreachable", `unknown peer ${peer}`));
    return link.sendSnapshot(message, path);
  }

  async close(): Promise<void> {
    for (const link of this.links.values()) link.close();
    this.links.clear();
    for (const conn of this.inbound) conn.close();
    // A listener only finishes closing once every connection has.
    for (const ws of this.server.clients) ws.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.listener?.close();
  }
}

const detached: TransportHandlers<never> = {
  onMessages: () => {},
  onUnreachable: () => {},
  onSnapshot: () => Promise.reject(new Error("not started")),
};

function newServer(options: TransportOptions<unknown>): WebSocketServer {
  return new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: options.limits?.maxFrameBytes ?? defaultLimits.maxFrameBytes,
  });
}

/** With TLS verification on, only a server's certificate may open the Raft path (CVE-2021-37219 in Consul). */
function serverRefusal(
  tls: TransportOptions<unknown>["tls"],
  req: IncomingMessage,
): { status: 403; reason: string } | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (!tls?.authorizeServer || !socket.encrypted || !socket.authorized) return undefined;
  const reason = tls.authorizeServer(socket.getPeerCertificate!());
  return reason === undefined ? undefined : { status: 403, reason };
}

function remoteOf(req: IncomingMessage): string {
  return `${req.socket.remoteAddress}:${req.socket.remotePort}`;
}
