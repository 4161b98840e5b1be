import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { dialTarget, RpcError, type TransportTls } from "@cairn/raft";
import type { Logger } from "pino";
import { type RawData, WebSocket } from "ws";
import type { ServerPort } from "../server-port/server-port.js";
import { toBytes } from "../tunnel/protocol.js";
import {
  type CallFrame,
  decodeCall,
  decodeReply,
  encodeRpcFrame,
  MAX_RPC_FRAME_BYTES,
  SERVER_RPC_PATH,
} from "./frames.js";
import { PendingRequests, type RpcHandler, remoteErrorPayload } from "./pending.js";

export interface ServerRpcOptions {
  nodeId: string;
  /** The datacenter: a server of another one may not call in. */
  clusterId: string;
  /** Where a peer's server port is (Raft's address book). */
  addressOf: (peer: string) => string | undefined;
  tls?: TransportTls;
  log: Logger;
  /** Requests waiting for a connection to one peer before further ones fail as overloaded. */
  maxWaiting?: number;
}

/**
 * Requests between the servers of one datacenter, on the shared server port: each server dials one pooled
 * connection per peer it calls (redialed when it drops, at the address Raft knows now) and answers the calls
 * that arrive on its own route. Failures are RpcErrors, as callers sort them (`leader-hold.ts`).
 */
export class ServerRpc {
  private readonly handlers = new Map<string, RpcHandler>();
  private readonly links = new Map<string, PeerCalls>();
  private closed = false;

  constructor(private readonly o: ServerRpcOptions) {}

  /** Answers calls on `port`; with verified TLS, only a server's certificate may call. */
  serve(port: ServerPort): void {
    port.websocketRoute(
      SERVER_RPC_PATH,
      (ws, req) => this.accept(ws, req),
      MAX_RPC_FRAME_BYTES,
      (req) => this.refusal(req),
    );
  }

  /** Registers the handler that answers `method`; its result (or thrown error) is sent back. */
  handle(method: string, handler: RpcHandler): void {
    if (this.handlers.has(method)) throw new Error(`a handler for ${method} is already registered`);
    this.handlers.set(method, handler);
  }

  /** Calls `method` on `peer`; resolves with its handler's answer, rejects with an RpcError. */
  request(peer: string, method: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new RpcError("unreachable", "server RPC is closed"));
    const address = this.o.addressOf(peer);
    if (address === undefined) return Promise.reject(new RpcError("unconnected", `unknown peer ${peer}`));
    let link = this.links.get(peer);
    if (!link) {
      link = new PeerCalls(peer, this.o);
      this.links.set(peer, link);
    }
    return link.request(address, method, payload, timeoutMs);
  }

  /** Drops the outgoing connections (the port closes the incoming ones). */
  close(): void {
    this.closed = true;
    for (const link of this.links.values()) link.close();
    this.links.clear();
  }

  private refusal(req: IncomingMessage): string | undefined {
    const query = new URL(req.url ?? "/", "http://x").searchParams;
    if (query.get("cluster") !== this.o.clusterId) return `caller belongs to cluster ${query.get("cluster")}`;
    const socket = req.socket as Partial<TLSSocket>;
    if (!this.o.tls?.authorizeServer || !socket.encrypted || !socket.authorized) return undefined;
    return this.o.tls.authorizeServer(socket.getPeerCertificate!());
  }

  private accept(ws: WebSocket, req: IncomingMessage): void {
    const from = new URL(req.url ?? "/", "http://x").searchParams.get("from") ?? "";
    ws.on("message", (data: RawData) => {
      const frame = decodeCall(toBytes(data));
      if (!frame) {
        this.o.log.warn({ from }, "closing a server RPC connection that sent a malformed frame");
        ws.close(1002, "malformed frame");
        return;
      }
      void this.answer(frame, from).then((reply) => {
        if (ws.readyState === ws.OPEN) ws.send(encodeRpcFrame(reply));
      });
    });
    ws.on("error", (err) => this.o.log.debug({ from, err: err.message }, "server RPC connection error"));
  }

  private async answer(frame: CallFrame, from: string) {
    const handler = this.handlers.get(frame.method);
    if (!handler) {
      const message = `no handler for ${frame.method}`;
      return {
        t: "reply",
        id: frame.id,
        ok: false,
        payload: { failure: "no-handler", name: "", message },
      } as const;
    }
    try {
      return { t: "reply", id: frame.id, ok: true, payload: await handler(frame.payload, from) } as const;
    } catch (err) {
      return { t: "reply", id: frame.id, ok: false, payload: remoteErrorPayload(err) } as const;
    }
  }
}

/** How long dialing a peer may take before the calls waiting for it fail as unconnected. */
const DIAL_TIMEOUT_MS = 5_000;

/** Pause before redialing a peer whose connection dropped while requests were waiting for it. */
const REDIAL_MS = 200;

/** The calls to one peer, over one connection dialed on demand. */
class PeerCalls {
  private readonly requests = new PendingRequests();
  private ws: WebSocket | undefined;
  private waiting: (() => void)[] = [];
  /** Where the peer was last said to be: a redial goes there. */
  private address = "";
  private redial: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly peer: string,
    private readonly o: ServerRpcOptions,
  ) {}

  request(address: string, method: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    this.address = address;
    const { id, answer } = this.requests.open(timeoutMs, method);
    const send = () => {
      if (this.requests.markSent(id)) this.ws?.send(encodeRpcFrame({ t: "call", id, method, payload }));
    };
    if (this.ws?.readyState === WebSocket.OPEN) send();
    else if (this.waiting.length >= (this.o.maxWaiting ?? 1024))
      this.requests.fail(id, new RpcError("overloaded", `too many requests waiting for ${this.peer}`));
    else {
      this.waiting.push(send);
      if (!this.ws && this.redial === undefined) this.dial();
    }
    return answer;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.redial);
    this.ws?.terminate();
    this.requests.failAll(new RpcError("unreachable", `link to ${this.peer} is closed`));
    this.waiting = [];
  }

  private dial(): void {
    this.redial = undefined;
    const address = this.address;
    const query = `?from=${encodeURIComponent(this.o.nodeId)}&cluster=${encodeURIComponent(this.o.clusterId)}`;
    const { url, options } = dialTarget(address, SERVER_RPC_PATH + query, this.o.tls?.outgoing());
    const ws = new WebSocket(url, {
      ...options,
      perMessageDeflate: false,
      maxPayload: MAX_RPC_FRAME_BYTES,
      handshakeTimeout: DIAL_TIMEOUT_MS,
    });
    this.ws = ws;
    let reason = "";
    let opened = false;
    ws.on("open", () => {
      opened = true;
      const waiting = this.waiting;
      this.waiting = [];
      for (const send of waiting) send();
    });
    ws.on("message", (data: RawData) => {
      const reply = decodeReply(toBytes(data));
      if (reply) this.requests.settle(reply.id, reply.ok, reply.payload);
      else ws.terminate();
    });
    ws.on("unexpected-response", (_req, res) => {
      reason = `refused with status ${res.statusCode}`;
      ws.terminate();
    });
    ws.on("error", (err) => {
      reason ||= err.message;
    });
    ws.on("close", () => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      if (opened) this.lost(`connection to ${this.peer} lost${reason ? `: ${reason}` : ""}`);
      else this.unconnected(`cannot connect to ${this.peer}${reason ? `: ${reason}` : ""}`);
    });
  }

  /**
   * A dial failed: the requests waiting for it never left, and fail now rather than at their own deadlines
   * (a forwarded write's is 35 s), so that a caller holding for a leader can look again, and give up within
   * its hold time, instead of waiting out a dead leader's redials.
   */
  private unconnected(reason: string): void {
    this.waiting = [];
    this.requests.failUnsent(new RpcError("unconnected", reason));
  }

  private lost(reason: string): void {
    // Requests that went out may or may not have run: their callers decide. Those made while it was closing
    // never left, and get a new dial.
    this.requests.failSent(new RpcError("unreachable", reason));
    if (this.closed || this.waiting.length === 0) return;
    this.redial = setTimeout(() => this.dial(), REDIAL_MS);
    this.redial.unref();
  }
}
