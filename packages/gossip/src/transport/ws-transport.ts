import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import type { Message } from "../core/types.js";
import { emptyTransportStats, type GossipTransport, type TransportStats } from "../ports.js";
import { FrameCodec } from "./frames.js";
import type { Keyring } from "./keyring.js";

export interface TransportOptions {
  bindHost: string;
  /** 0 picks a free port. */
  port: number;
  /** Host others reach us at; defaults to bindHost. */
  advertiseHost?: string;
  /** Shared key (raw bytes) or keyring enabling AES-GCM on every frame. */
  key?: Buffer | Keyring;
  /** Outbound connections unused this long are closed (ms). */
  idleTimeout?: number;
  /** Frames queued per peer while connecting; beyond it the oldest are dropped. */
  maxQueuedFrames?: number;
  /** Frames are dropped instead of buffered once a socket holds this many unsent bytes. */
  maxBufferedBytes?: number;
  /**
   * Other WebSocket services sharing the gossip port, by request path (`/gossip` is the gossip path and
   * cannot be taken). Each accepted socket is handed over as is; its handler owns it from then on.
   */
  routes?: Readonly<Record<string, WebSocketRoute>>;
  /** A connection to `address` failed (refused, unresolvable, handshake timeout): frames to it were lost. */
  onUnreachable?: (address: string) => void;
}

/** A WebSocket service sharing the gossip port: receives each socket upgraded on its path. */
export type WebSocketRoute = (ws: WebSocket, req: IncomingMessage) => void;

type PacketHandler = (from: string, packet: Message[]) => void;

interface Peer {
  socket: WebSocket;
  queue: Buffer[];
  lastUsed: number;
}

const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** Largest message on an extra route: they carry small requests (the servers' join exchange). */
const MAX_ROUTE_MESSAGE_BYTES = 1024 * 1024;
const PATH = "/gossip";

/**
 * Gossip over WebSockets: one listening server, and one reused connection per peer address (closed when
 * idle): our own outbound one, or else the one the peer opened to us, so a push-pull request and its reply
 * travel on the same connection. Frames that fail to decode, carry an unknown version, claim impossible states or fail
 * authentication are dropped and counted; the connection stays up.
 */
export class WsTransport implements GossipTransport {
  readonly address: string;
  private readonly codec: FrameCodec;
  private readonly peers = new Map<string, Peer>();
  /** Inbound sockets by the sender's advertised address: replies (push-pull responses) go back on them. */
  private readonly inbound = new Map<string, WebSocket>();
  private readonly idleTimer: NodeJS.Timeout;
  private readonly counters: TransportStats = emptyTransportStats();
  private closed = false;

  private constructor(
    private readonly http: Server,
    private readonly server: WebSocketServer,
    private readonly routeServer: WebSocketServer,
    private readonly options: TransportOptions,
    private readonly onPacket: PacketHandler,
  ) {
    this.codec = new FrameCodec(options.key);
    const { port } = http.address() as AddressInfo;
    const host = options.advertiseHost ?? options.bindHost;
    // IPv6 hosts are bracketed, so the address splits at its last colon and works in a ws:// URL.
    this.address = host.includes(":") && !host.startsWith("[") ? `[${host}]:${port}` : `${host}:${port}`;
    server.on("connection", (socket) => this.accept(socket));
    const idle = options.idleTimeout ?? 60_000;
    this.idleTimer = setInterval(() => this.closeIdle(idle), Math.max(1000, idle / 2));
    this.idleTimer.unref();
  }

  static listen(options: TransportOptions, onPacket: PacketHandler): Promise<WsTransport> {
    const routes = options.routes ?? {};
    if (Object.hasOwn(routes, PATH))
      throw new Error(`${PATH} is the gossip path and cannot be routed elsewhere`);
    const http = createServer((_req, res) => {
      res.writeHead(426, { "Content-Type": "text/plain" }).end("WebSocket upgrade required\n");
    });
    const server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
    const routeServer = new WebSocketServer({ noServer: true, maxPayload: MAX_ROUTE_MESSAGE_BYTES });
    http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on("error", () => socket.destroy());
      const path = (req.url ?? "").split("?")[0] ?? "";
      if (path === PATH) {
        server.handleUpgrade(req, socket, head, (ws) => server.emit("connection", ws, req));
        return;
      }
      const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
      if (route) {
        routeServer.handleUpgrade(req, socket, head, (ws) => {
          try {
            route(ws, req);
          } catch {
            ws.terminate();
          }
        });
        return;
      }
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    });
    return new Promise((resolve, reject) => {
      http.once("error", reject);
      http.listen(options.port, options.bindHost, () => {
        http.off("error", reject);
        resolve(new WsTransport(http, server, routeServer, options, onPacket));
      });
    });
  }

  send(to: string, packet: readonly Message[]): void {
    if (this.closed) return;
    const frame = this.codec.encode(this.address, packet);
    const reverse = this.peers.has(to) ? undefined : this.inbound.get(to);
    if (reverse?.readyState === WebSocket.OPEN) {
      this.writeTo(reverse, frame);
      return;
    }
    let peer = this.peers.get(to);
    if (!peer) {
      try {
        peer = this.connect(to);
      } catch {
        // Not even a valid URL: nothing could ever be delivered there.
        this.counters.dropped.unreachable++;
        this.options.onUnreachable?.(to);
        return;
      }
    }
    peer.lastUsed = Date.now();
    if (peer.socket.readyState === WebSocket.OPEN) {
      this.write(peer, frame);
      return;
    }
    peer.queue.push(frame);
    if (peer.queue.length > (this.options.maxQueuedFrames ?? 256)) {
      peer.queue.shift();
      this.counters.dropped["queue-full"]++;
    }
  }

  stats(): TransportStats {
    return {
      ...this.counters,
      outboundConnections: this.peers.size,
      inboundConnections: this.server.clients.size,
      dropped: { ...this.counters.dropped },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.idleTimer);
    for (const peer of this.peers.values()) peer.socket.terminate();
    this.peers.clear();
    for (const client of this.server.clients) client.terminate();
    for (const client of this.routeServer.clients) client.terminate();
    this.inbound.clear();
    this.server.close();
    this.routeServer.close();
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.http.closeAllConnections();
    await closed;
  }

  private connect(to: string): Peer {
    const socket = new WebSocket(`ws://${to}${PATH}`, {
      maxPayload: MAX_FRAME_BYTES,
      handshakeTimeout: 5000,
    });
    const peer: Peer = { socket, queue: [], lastUsed: Date.now() };
    this.peers.set(to, peer);
    socket.on("open", () => {
      for (const frame of peer.queue) this.write(peer, frame);
      peer.queue = [];
    });
    // Peers answer (push-pull replies, acks) on the connection we opened to them.
    socket.on("message", (data, isBinary) => this.receive(data, isBinary));
    socket.on("error", () => {
      this.counters.dropped.unreachable += peer.queue.length;
      peer.queue = [];
      if (socket.readyState !== WebSocket.OPEN) this.options.onUnreachable?.(to);
    });
    socket.on("close", () => {
      if (this.peers.get(to) === peer) this.peers.delete(to);
    });
    return peer;
  }

  private write(peer: Peer, frame: Buffer): void {
    this.writeTo(peer.socket, frame);
  }

  private writeTo(socket: WebSocket, frame: Buffer): void {
    if (socket.bufferedAmount > (this.options.maxBufferedBytes ?? 4 * 1024 * 1024)) {
      this.counters.dropped["queue-full"]++;
      return;
    }
    socket.send(frame);
    this.counters.framesSent++;
    this.counters.bytesSent += frame.length;
  }

  private accept(socket: WebSocket): void {
    socket.on("message", (data, isBinary) => this.receive(data, isBinary, socket));
    socket.on("error", () => socket.terminate());
    socket.on("close", () => {
      for (const [from, s] of this.inbound) if (s === socket) this.inbound.delete(from);
    });
  }

  /** Decodes and delivers one frame; a valid frame on an inbound socket makes it the reply path to its sender. */
  private receive(data: WebSocket.RawData, isBinary: boolean, inboundSocket?: WebSocket): void {
    const frame = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : Buffer.from(data);
    this.counters.bytesReceived += frame.length;
    if (!isBinary) {
      this.counters.dropped.malformed++;
      return;
    }
    const decoded = this.codec.decode(frame);
    if (!decoded.ok) {
      this.counters.dropped[decoded.reason]++;
      return;
    }
    this.counters.framesReceived++;
    if (inboundSocket && this.inbound.get(decoded.from) !== inboundSocket)
      this.inbound.set(decoded.from, inboundSocket);
    this.onPacket(decoded.from, decoded.packet);
  }

  private closeIdle(idle: number): void {
    const now = Date.now();
    for (const [to, peer] of this.peers) {
      if (now - peer.lastUsed < idle || peer.queue.length > 0) continue;
      this.peers.delete(to);
      peer.socket.close(1000, "idle");
    }
  }
}
