import type { Logger } from "pino";
import { WebSocket } from "ws";
import { atTurnEnd } from "../node/turn-end.js";
import { Backoff } from "./backoff.js";
import {
  type AcceptorFrame,
  decodeAcceptorFrame,
  encodeFrame,
  type Frame,
  FrameKind,
  PROTOCOL_VERSION,
} from "./frames.js";
import { closeWithReason, keepAlive } from "./keepalive.js";
import { SERVER_PATH, type TransportLimits } from "./options.js";
import { RpcError } from "./rpc-error.js";
import { SnapshotSender } from "./snapshot-sender.js";
import { dialTarget, type TransportTls } from "./tls.js";

export interface LinkContext {
  nodeId: string;
  clusterId: string;
  advertiseAddress: string;
  tls?: TransportTls;
  logger: Logger;
  limits: TransportLimits;
  random: () => number;
  onUnreachable(peer: string): void;
  /** A dial was refused (see TransportHandlers.onRefused). */
  onRefused(peer: string): void;
}

/**
 * This server's outbound connection to one peer. Everything this server initiates towards the peer travels
 * on it: Raft messages and snapshot streams; the peer's answers come back on it. It redials with
 * backoff whenever it drops, until closed.
 */
export class PeerLink<M> {
  private ws: WebSocket | undefined;
  private open = false;
  private closed = false;
  private redialTimer: NodeJS.Timeout | undefined;
  private stopKeepAlive: (() => void) | undefined;
  private readonly backoff: Backoff;
  private batch: M[] = [];
  private flushScheduled = false;
  private snapshot: SnapshotSender<M> | undefined;
  private nextStream = 1;
  private readonly log: Logger;

  constructor(
    readonly peer: string,
    private address: string,
    private readonly ctx: LinkContext,
  ) {
    this.backoff = new Backoff(ctx.limits.backoff, ctx.random);
    this.log = ctx.logger.child({ peer, address });
    this.dial();
  }

  get connected(): boolean {
    return this.open;
  }

  /** Points the link at a new address (the peer moved); the current connection is replaced. */
  setAddress(address: string): void {
    if (address === this.address) return;
    this.address = address;
    this.ws?.terminate();
  }

  /** Queues a Raft message; everything queued in one loop turn leaves in one frame. */
  send(message: M): void {
    if (this.batch.length >= this.ctx.limits.maxBatchMessages) {
      this.ctx.onUnreachable(this.peer);
      return;
    }
    this.batch.push(message);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      atTurnEnd(() => this.flush());
    }
  }

  /** Streams a snapshot file; resolves once the peer has it durably, rejects if the stream broke. */
  async sendSnapshot(message: M, path: string): Promise<void> {
    if (!this.open) throw new RpcError("unreachable", `no connection to ${this.peer}`);
    if (this.snapshot) throw new Error(`a snapshot is already streaming to ${this.peer}`);
    const { snapshotChunkBytes, snapshotWindow } = this.ctx.limits;
    const sender = new SnapshotSender<M>(
      this.nextStream++,
      (f) => this.sendFrame(f),
      snapshotChunkBytes,
      snapshotWindow,
    );
    this.snapshot = sender;
    try {
      await sender.run(message, path);
    } finally {
      if (this.snapshot === sender) this.snapshot = undefined;
    }
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.redialTimer);
    this.ws?.terminate();
    this.lost("link closed");
  }

  private flush(): void {
    this.flushScheduled = false;
    const messages = this.batch;
    this.batch = [];
    if (messages.length === 0) return;
    const ws = this.ws;
    if (!this.open || !ws || ws.bufferedAmount > this.ctx.limits.maxBufferedBytes) {
      this.ctx.onUnreachable(this.peer);
      return;
    }
    ws.send(encodeFrame<M>({ kind: FrameKind.raft, messages }));
  }

  private sendFrame(frame: Frame<M>): void {
    this.ws?.send(encodeFrame(frame));
  }

  private dial(): void {
    if (this.closed) return;
    const target = dialTarget(this.address, SERVER_PATH, this.ctx.tls?.outgoing());
    const ws = new WebSocket(target.url, {
      ...target.options,
      perMessageDeflate: false,
      maxPayload: this.ctx.limits.maxFrameBytes,
      handshakeTimeout: 5000,
    });
    this.ws = ws;
    ws.binaryType = "nodebuffer";
    ws.on("open", () => {
      ws.send(
        encodeFrame<M>({
          kind: FrameKind.hello,
          version: PROTOCOL_VERSION,
          cluster: this.ctx.clusterId,
          from: this.ctx.nodeId,
          to: this.peer,
          address: this.ctx.advertiseAddress,
        }),
      );
      this.stopKeepAlive = keepAlive(ws, this.ctx.limits.pingIntervalMs);
    });
    ws.on("message", (data, isBinary) => {
      if (this.ws !== ws || ws.readyState !== ws.OPEN) return;
      const decoded = isBinary
        ? decodeAcceptorFrame(data as Buffer)
        : { ok: false as const, reason: "text frame" };
      if (decoded.ok) this.receive(ws, decoded.frame);
      else this.reject(ws, decoded.reason);
    });
    ws.on("error", (err) => {
      // A certificate the CA did not sign, or one naming another role, must be visible to the operator.
      if (target.url.startsWith("wss:") && isTlsRefusal(err))
        this.log.warn({ err: err.message }, "refused the server's certificate");
      else this.log.debug({ err: err.message }, "server connection error");
      if ((err as NodeJS.ErrnoException).code === "ECONNREFUSED" && this.ws === ws)
        this.ctx.onRefused(this.peer);
    });
    ws.on("unexpected-response", (_req, res) => {
      this.log.warn({ status: res.statusCode }, "the server refused this connection");
      ws.terminate();
    });
    ws.on("close", (code, reason) => {
      if (this.ws !== ws) return;
      if (this.open) this.log.info({ code, reason: reason.toString() }, "server connection lost");
      this.ws = undefined;
      this.stopKeepAlive?.();
      this.lost(`connection to ${this.peer} lost`);
      if (!this.closed) this.redialTimer = setTimeout(() => this.dial(), this.backoff.next());
    });
  }

  private receive(ws: WebSocket, frame: AcceptorFrame): void {
    switch (frame.kind) {
      case FrameKind.welcome: {
        if (frame.node !== this.peer) {
          this.reject(ws, `expected node ${this.peer}, reached ${frame.node}`);
          return;
        }
        this.open = true;
        this.backoff.reset();
        this.log.info("server connection established");
        return;
      }
      case FrameKind.snapshotAck:
        if (this.snapshot?.stream === frame.stream) this.snapshot.onAck(frame.seq);
        return;
      case FrameKind.snapshotDone:
        if (this.snapshot?.stream === frame.stream) this.snapshot.onDone(frame.ok, frame.reason);
        return;
    }
  }

  /** A frame we cannot trust: drop the connection (it will be redialed), never the process. */
  private reject(ws: WebSocket, reason: string): void {
    this.log.warn({ reason }, "closing server connection: bad frame");
    closeWithReason(ws, reason);
  }

  private lost(reason: string): void {
    this.open = false;
    this.snapshot?.fail(new RpcError("unreachable", reason));
  }
}

function isTlsRefusal(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code ?? "";
  return /CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS|ERR_SSL/.test(code) || /certificate/.test(err.message);
}
