import type { Logger } from "pino";
import type { WebSocket } from "ws";
import {
  type AcceptorFrame,
  type DialerFrame,
  decodeDialerFrame,
  encodeFrame,
  FrameKind,
  PROTOCOL_VERSION,
} from "./frames.js";
import { closeWithReason, keepAlive } from "./keepalive.js";
import type { TransportHandlers, TransportLimits } from "./options.js";
import { SnapshotReceiver } from "./snapshot-receiver.js";

export interface InboundContext<M> {
  nodeId: string;
  clusterId: string;
  logger: Logger;
  limits: TransportLimits;
  isMessage: (value: unknown) => value is M;
  handlers: TransportHandlers<M>;
}

/**
 * A connection a peer dialed to this server. It must introduce itself first (HELLO, same cluster, meant for
 * this node); after that it carries the peer's Raft messages and snapshot streams, and this side
 * answers on it.
 */
export class InboundConnection<M> {
  private peer: string | undefined;
  private rejected = false;
  private incoming: SnapshotReceiver | undefined;
  private readonly stopKeepAlive: () => void;
  private log: Logger;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: InboundContext<M>,
    remote: string,
  ) {
    this.log = ctx.logger.child({ remote });
    ws.binaryType = "nodebuffer";
    this.stopKeepAlive = keepAlive(ws, ctx.limits.pingIntervalMs);
    ws.on("message", (data, isBinary) => {
      if (this.rejected) return;
      const decoded = isBinary
        ? decodeDialerFrame(data as Buffer, ctx.isMessage)
        : { ok: false as const, reason: "text frame" };
      if (decoded.ok) this.receive(decoded.frame);
      else this.reject(decoded.reason);
    });
    ws.on("error", (err) => this.log.debug({ err: err.message }, "server connection error"));
    // A connection that never introduces itself would otherwise hold a socket for good.
    const helloDeadline = setTimeout(() => {
      if (this.peer === undefined) this.reject("no hello in time");
    }, ctx.limits.helloTimeoutMs);
    helloDeadline.unref();
    ws.on("close", () => {
      clearTimeout(helloDeadline);
      this.stopKeepAlive();
      this.incoming?.abort();
    });
  }

  close(): void {
    this.ws.terminate();
  }

  private receive(frame: DialerFrame<M>): void {
    const peer = this.peer;
    if (frame.kind === FrameKind.hello) {
      this.hello(frame);
      return;
    }
    if (peer === undefined) {
      this.reject("first frame was not a hello");
      return;
    }
    switch (frame.kind) {
      case FrameKind.raft:
        this.ctx.handlers.onMessages(peer, frame.messages);
        return;
      case FrameKind.snapshotBegin:
        this.beginSnapshot(peer, frame.stream, frame.message, frame.size);
        return;
      case FrameKind.snapshotChunk:
        this.snapshotChunk(frame.stream, frame.seq, frame.data);
        return;
      case FrameKind.snapshotEnd:
        this.endSnapshot(frame.stream, frame.crc);
        return;
    }
  }

  private hello(frame: Extract<DialerFrame<M>, { kind: typeof FrameKind.hello }>): void {
    if (this.peer !== undefined) {
      this.reject("second hello");
      return;
    }
    if (frame.version !== PROTOCOL_VERSION) {
      this.reject(`unsupported protocol version ${frame.version}`);
      return;
    }
    if (frame.cluster !== this.ctx.clusterId) {
      this.reject(`peer belongs to cluster ${frame.cluster}`);
      return;
    }
    if (frame.to !== this.ctx.nodeId) {
      this.reject(`peer meant to reach node ${frame.to}`);
      return;
    }
    this.peer = frame.from;
    this.log = this.log.child({ peer: frame.from });
    this.ctx.handlers.onPeerAddress?.(frame.from, frame.address);
    this.send({ kind: FrameKind.welcome, node: this.ctx.nodeId });
  }

  private beginSnapshot(peer: string, stream: number, message: M, size: number): void {
    this.incoming?.abort();
    this.log.info({ stream, size }, "receiving snapshot");
    const sink = this.ctx.handlers.onSnapshot(peer, message, size);
    this.incoming = new SnapshotReceiver(stream, size, sink, (f) => this.send(f), this.log);
  }

  private snapshotChunk(stream: number, seq: number, data: Uint8Array): void {
    if (this.incoming?.stream !== stream) {
      this.reject(`chunk of unknown snapshot stream ${stream}`);
      return;
    }
    const violation = this.incoming.chunk(seq, data);
    if (violation) this.reject(violation);
  }

  private endSnapshot(stream: number, crc: number): void {
    if (this.incoming?.stream !== stream) {
      this.reject(`end of unknown snapshot stream ${stream}`);
      return;
    }
    this.incoming.end(crc);
    this.incoming = undefined;
  }

  private send(frame: AcceptorFrame): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(encodeFrame(frame));
  }

  /** A frame we cannot trust: drop this connection, never the process or the log. */
  private reject(reason: string): void {
    this.rejected = true;
    this.log.warn({ reason }, "closing server connection: bad frame");
    closeWithReason(this.ws, reason);
  }
}
