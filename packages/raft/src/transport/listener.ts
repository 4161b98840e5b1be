import { createServer as createHttpServer, type Server as HttpServer, type IncomingMessage } from "node:http";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { Duplex } from "node:stream";
import { createServer as createTlsServer, type TLSSocket, type Server as TlsServer } from "node:tls";
import type { Logger } from "pino";
import type { IncomingTls, TransportTls } from "./tls.js";

/** A TLS record starts with this byte (handshake); no HTTP request does. */
const TLS_HANDSHAKE = 0x16;
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** The URL path of an upgrade request, without its query. */
export function upgradePath(req: IncomingMessage): string {
  const url = req.url;
  const query = url?.indexOf("?") ?? -1;
  return url === undefined ? "" : query < 0 ? url : url.slice(0, query);
}

/** Answers an upgrade request with an empty error response and closes the connection. */
export function refuseUpgrade(socket: Duplex, status: 400 | 403): void {
  socket.end(
    `HTTP/1.1 ${status} ${status === 403 ? "Forbidden" : "Bad Request"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
  );
  socket.destroy();
}

/**
 * The server RPC port's listener: accepts TCP connections, brings up TLS on them when configured (plaintext
 * still accepted unless clients must be verified, as Consul's `verify_incoming = false` allows), refuses
 * peers that fail verification with the reason logged, and hands HTTP upgrade requests to `onUpgrade`.
 * A connection that sends nothing or never finishes its handshake is closed after the handshake timeout.
 */
export class RpcListener {
  private readonly sockets = new Set<Socket>();
  private tlsServer: TlsServer | undefined;
  private tlsOptionsInUse: IncomingTls["options"] | undefined;

  private constructor(
    private readonly server: Server,
    private readonly http: HttpServer,
    private readonly tls: TransportTls | undefined,
    private readonly log: Logger,
  ) {}

  static async start(
    host: string,
    port: number,
    tls: TransportTls | undefined,
    onUpgrade: UpgradeHandler,
    log: Logger,
  ): Promise<RpcListener> {
    const http = createHttpServer((_req, res) => {
      res.writeHead(426, { "content-type": "text/plain" }).end("Upgrade Required");
    });
    http.on("upgrade", onUpgrade);
    http.on("clientError", (_err, socket) => socket.destroy());
    const server = createServer({ noDelay: true });
    const listener = new RpcListener(server, http, tls, log);
    server.on("connection", (socket) => listener.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (err) => log.error({ err: err.message }, "server transport listener error"));
    return listener;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => {});
    const incoming = this.tls?.incoming();
    if (!incoming) {
      this.http.emit("connection", socket);
      return;
    }
    const remote = `${socket.remoteAddress}:${socket.remotePort}`;
    if (incoming.verifyClients) {
      // Everything must be TLS: the native socket goes straight to the TLS server (no copying).
      this.tlsServerFor(incoming).emit("connection", labelled(socket, remote));
      return;
    }
    // Plaintext is still accepted: the first byte tells a TLS client from a plain one.
    const timeoutMs = this.handshakeTimeoutMs();
    const timer = setTimeout(() => {
      this.refuse(remote, `sent nothing within ${timeoutMs} ms`);
      socket.destroy();
    }, timeoutMs);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
    socket.once("data", (first: Buffer) => {
      clearTimeout(timer);
      socket.pause();
      if (first[0] === TLS_HANDSHAKE) {
        this.tlsServerFor(incoming).emit("connection", labelled(bufferedStream(socket, first), remote));
      } else {
        socket.unshift(first);
        this.http.emit("connection", socket);
        socket.resume();
      }
    });
  }

  private handshakeTimeoutMs(): number {
    return this.tls?.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  }

  /** One TLS server per set of options: after a reload new connections get a new one. */
  private tlsServerFor(incoming: IncomingTls): TlsServer {
    if (this.tlsServer && this.tlsOptionsInUse === incoming.options) return this.tlsServer;
    const verifyClients = incoming.verifyClients;
    const server = createTlsServer({
      ...incoming.options,
      requestCert: verifyClients,
      // Checked below instead, so that the refusal is logged with its reason.
      rejectUnauthorized: false,
      handshakeTimeout: this.handshakeTimeoutMs(),
    });
    server.on("secureConnection", (tlsSocket: TLSSocket) => {
      const reason = verifyClients ? clientCertificateProblem(tlsSocket) : undefined;
      if (reason === undefined) {
        this.http.emit("connection", tlsSocket);
        return;
      }
      this.refuse(remoteOf(tlsSocket), reason);
      tlsSocket.destroy();
    });
    server.on("tlsClientError", (err, tlsSocket) => {
      const code = (err as NodeJS.ErrnoException).code;
      const reason =
        code === "ERR_SSL_HTTP_REQUEST" || code === "ERR_SSL_WRONG_VERSION_NUMBER"
          ? "plaintext connection: TLS is required (verify_incoming)"
          : `TLS handshake failed: ${err.message.split("\n")[0]}`;
      this.refuse(remoteOf(tlsSocket), reason);
      tlsSocket.destroy();
    });
    this.tlsServer = server;
    this.tlsOptionsInUse = incoming.options;
    return server;
  }

  private refuse(remote: string, reason: string): void {
    this.log.warn({ remote, reason }, "refused a connection on the server RPC port");
  }

  /** Stops accepting and ends every connection. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const REMOTE = Symbol("remote");

/** Marks the stream under a TLS socket with the peer's address, for refusal messages. */
function labelled<S extends Duplex>(stream: S, remote: string): S {
  (stream as S & { [REMOTE]?: string })[REMOTE] = remote;
  return stream;
}

function remoteOf(tlsSocket: TLSSocket): string {
  // A TLS socket's underlying stream is its `_parent` (Node has no public accessor for it).
  const parent = (tlsSocket as unknown as { _parent?: { [REMOTE]?: string } })._parent;
  return parent?.[REMOTE] ?? "unknown";
}

/** Why a client certificate is not acceptable, or undefined when it was verified against the CA. */
function clientCertificateProblem(socket: TLSSocket): string | undefined {
  if (socket.authorized) return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return "no client certificate (verify_incoming)";
  return `client certificate not verified: ${String(socket.authorizationError)}`;
}

/** `socket` with `first` put back in front, as a plain stream (a TLS socket over it then sees every byte). */
function bufferedStream(socket: Socket, first: Buffer): Duplex {
  const stream = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk, encoding, callback) {
      socket.write(chunk, encoding, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(err, callback) {
      socket.destroy(err ?? undefined);
      callback(err);
    },
  });
  socket.on("data", (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.on("end", () => stream.push(null));
  socket.on("close", () => stream.destroy());
  stream.push(first);
  return stream;
}
