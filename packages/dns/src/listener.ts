import dgram from "node:dgram";
import { createServer, isIP, type Server, type Socket } from "node:net";
import { type HandlerOptions, handleMessage } from "./handler.js";

export interface DnsListenerOptions {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  handler: HandlerOptions;
  /** A TCP connection idle this long is closed (miekg/dns, which Consul uses, waits 8 s). */
  tcpIdleMs?: number;
  /** At most this many TCP connections at once; more are closed on arrival. */
  maxTcpConnections?: number;
}

/**
 * DNS on UDP and TCP at one address: each message goes to `handleMessage`, the UDP answer back to its
 * sender, TCP answers framed with their two-byte length, in order, on the connection they came on.
 */
/** How many free UDP ports to try, with port 0, before giving up on finding the same TCP port free. */
const PORT_ATTEMPTS = 20;

export class DnsListener {
  private readonly connections = new Set<Socket>();

  private constructor(
    private readonly udp: dgram.Socket,
    private readonly tcp: Server,
  ) {}

  static async start(o: DnsListenerOptions): Promise<DnsListener> {
    // With port 0 the UDP socket picks a free port, but the same TCP port may be taken: pick again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await DnsListener.bindBoth(o);
      } catch (err) {
        const taken = (err as NodeJS.ErrnoException).code === "EADDRINUSE";
        if (o.port !== 0 || !taken || attempt >= PORT_ATTEMPTS) throw err;
      }
    }
  }

  private static async bindBoth(o: DnsListenerOptions): Promise<DnsListener> {
    const udp = dgram.createSocket({ type: isIP(o.host) === 6 ? "udp6" : "udp4", reuseAddr: false });
    udp.on("message", (message, peer) => {
      void handleMessage(message, { transport: "udp", source: peer.address }, o.handler).then(
        (reply) => {
          // Without a callback: a failed send is an 'error' event (below), and no callback is queued per answer.
          if (reply) udp.send(reply, peer.port, peer.address);
        },
        (err: Error) => o.handler.onError?.(err),
      );
    });
    // A failed send (the asker went away) must not end the agent.
    udp.on("error", (err) => o.handler.onError?.(err));
    await new Promise<void>((resolve, reject) => {
      udp.once("error", reject);
      udp.bind(o.port, o.host, () => {
        udp.off("error", reject);
        resolve();
      });
    });
    const tcp = createServer();
    const listener = new DnsListener(udp, tcp);
    tcp.on("connection", (socket) => listener.serveTcp(socket, o));
    await new Promise<void>((resolve, reject) => {
      tcp.once("error", reject);
      // The same port as UDP, also when port 0 picked one.
      tcp.listen(udp.address().port, o.host, () => {
        tcp.off("error", reject);
        resolve();
      });
    }).catch((err) => {
      udp.close();
      throw err;
    });
    return listener;
  }

  /** The bound port (the same for UDP and TCP). */
  get port(): number {
    return this.udp.address().port;
  }

  private serveTcp(socket: Socket, o: DnsListenerOptions): void {
    if (this.connections.size >= (o.maxTcpConnections ?? 1024)) {
      socket.destroy();
      return;
    }
    this.connections.add(socket);
    socket.setTimeout(o.tcpIdleMs ?? 8_000, () => socket.destroy());
    socket.on("close", () => this.connections.delete(socket));
    socket.on("error", () => socket.destroy());
    let pending: Buffer = Buffer.alloc(0);
    // Answers leave in the order questions came, one at a time.
    let chain: Promise<void> = Promise.resolve();
    socket.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const length = pending.readUInt16BE(0);
        if (pending.length < 2 + length) break;
        const message = Buffer.from(pending.subarray(2, 2 + length));
        pending = pending.subarray(2 + length);
        chain = chain
          .then(async () => {
            const reply = await handleMessage(
              message,
              { transport: "tcp", source: socket.remoteAddress ?? "" },
              o.handler,
            );
            if (!reply || socket.destroyed) return;
            const framed = Buffer.alloc(2 + reply.length);
            framed.writeUInt16BE(reply.length, 0);
            reply.copy(framed, 2);
            socket.write(framed);
          })
          .catch((err: Error) => o.handler.onError?.(err));
      }
    });
  }

  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => this.udp.close(() => resolve())),
      new Promise<void>((resolve) => this.tcp.close(() => resolve())),
    ]);
  }
}
