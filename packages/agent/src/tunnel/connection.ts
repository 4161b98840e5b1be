import { dialTarget, type OutgoingTls } from "@cairn/raft";
import { WebSocket } from "ws";
import { sendBatched } from "./batched-send.js";
import {
  decodeServerFrame,
  encodeFrame,
  MAX_FRAME_BYTES,
  type RequestFrame,
  type ResponseFrame,
  type ServerFrame,
  SHARED_ANSWERS,
  TUNNEL_FEATURES_HEADER,
  TUNNEL_PATH,
  toBytes,
} from "./protocol.js";

/**
 * A server a client agent may use: its node name and RPC address (host:port), and its node ID when gossip
 * carries one (the servers name their leader by it).
 */
export interface ServerRef {
  name: string;
  rpcAddress: string;
  id?: string;
}

/**
 * The connection to a server failed. `sent` says whether the request may have reached it: one that never
 * left is always safe to send elsewhere.
 */
export class ConnectionLostError extends Error {
  constructor(
    readonly server: string,
    readonly sent: boolean,
    reason: string,
  ) {
    super(`connection to server ${server} lost: ${reason}`);
    this.name = "ConnectionLostError";
  }
}

/** The pool took a read back from this connection to send it elsewhere (the server stopped leading). */
export class RequestWithdrawnError extends Error {
  constructor(readonly server: string) {
    super(`request withdrawn from server ${server}`);
    this.name = "RequestWithdrawnError";
  }
}

/** The caller gave up on the request (its HTTP client went away). */
export class RequestCancelledError extends Error {
  constructor() {
    super("request cancelled by the client");
    this.name = "RequestCancelledError";
  }
}

/** A server's word on the Raft leader: its node ID ("" for none known) and the server's term. */
export interface LeaderNews {
  id: string;
  term: number;
}

interface Pending {
  resolve(frame: ServerFrame): void;
  reject(err: Error): void;
  /** A request's HTTP method; undefined for an agent RPC. */
  method?: string;
}

/** How often an idle connection is pinged; a server that misses a whole period is taken for gone. */
const KEEPALIVE_MS = 10_000;

/** One websocket to one server, carrying any number of requests at once. */
export class TunnelConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly closeListeners: (() => void)[] = [];
  private leaderListener: ((news: LeaderNews) => void) | undefined;
  /** The leader the server last reported, kept for a listener that comes after it. */
  private leader: LeaderNews | undefined;
  private readonly keepalive: NodeJS.Timeout;
  private answered = true;
  private closeReason = "";
  /** Set by retire(): closes once nothing is pending on it. */
  private retiring = false;

  private constructor(
    readonly server: ServerRef,
    private readonly ws: WebSocket,
  ) {
    ws.on("message", (data) => this.receive(toBytes(data)));
    ws.on("pong", () => {
      this.answered = true;
    });
    ws.on("close", (code, reason) => this.closed(`closed (${code}${reason.length ? ` ${reason}` : ""})`));
    ws.on("error", (err) => {
      this.closeReason ||= err.message;
    });
    this.keepalive = setInterval(() => {
      if (!this.answered) return ws.terminate();
      this.answered = false;
      ws.ping();
    }, KEEPALIVE_MS);
    this.keepalive.unref();
  }

  /** Dials `server`; rejects with ConnectionLostError (not sent) when it cannot be reached in time. */
  static open(server: ServerRef, timeoutMs: number, tls?: OutgoingTls): Promise<TunnelConnection> {
    return new Promise((resolve, reject) => {
      const target = dialTarget(server.rpcAddress, TUNNEL_PATH, tls);
      const ws = new WebSocket(target.url, {
        ...target.options,
        headers: { [TUNNEL_FEATURES_HEADER]: SHARED_ANSWERS },
        maxPayload: MAX_FRAME_BYTES,
        perMessageDeflate: false,
        handshakeTimeout: timeoutMs,
      });
      const fail = (reason: string) => {
        ws.removeAllListeners();
        ws.on("error", () => {});
        ws.terminate();
        reject(new ConnectionLostError(server.name, false, reason));
      };
      ws.once("open", () => {
        ws.removeAllListeners();
        resolve(new TunnelConnection(server, ws));
      });
      ws.once("error", (err) => fail(err.message));
      ws.once("unexpected-response", (_req, res) => fail(`refused with HTTP ${res.statusCode}`));
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Called with the leader as the server reports it: now if it already did. */
  onLeader(listener: (news: LeaderNews) => void): void {
    this.leaderListener = listener;
    if (this.leader !== undefined) listener(this.leader);
  }

  /** Sends a request; rejects with ConnectionLostError or RequestCancelledError. */
  request(frame: Omit<RequestFrame, "id" | "t">, signal?: AbortSignal): Promise<ResponseFrame> {
    if (signal?.aborted) return Promise.reject(new RequestCancelledError());
    const id = this.nextId++;
    return new Promise<ResponseFrame>((resolve, reject) => {
      const cancel = () => {
        if (!this.pending.delete(id)) return;
        this.send({ t: "cancel", id });
        reject(new RequestCancelledError());
        this.closeIfRetired();
      };
      signal?.addEventListener("abort", cancel, { once: true });
      const done = () => signal?.removeEventListener("abort", cancel);
      this.pending.set(id, {
        resolve: (answer) => {
          done();
          if (answer.t === "res") resolve(answer);
          else reject(new Error("the server answered a request with a call result"));
        },
        reject: (err) => {
          done();
          reject(err);
        },
        method: frame.method,
      });
      this.sendOrFail(id, { t: "req", id, ...frame });
    });
  }

  /** Calls one of the server's agent RPCs. */
  call(method: string, args: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        resolve: (answer) => {
          if (answer.t !== "result") reject(new Error("the server answered a call with a response"));
          else if (answer.error !== undefined) reject(new Error(answer.error));
          else resolve(answer.value);
        },
        reject,
      });
      this.sendOrFail(id, { t: "call", id, method, args });
    });
  }

  close(): void {
    this.ws.close(1000, "client closing");
    this.closed("closed by this agent");
  }

  /**
   * The pool has stopped sending here: closes as soon as the requests already sent are answered (or the
   * keepalive gives up on the server), so that they are not cut off on gossip's word, which may be wrong.
   */
  retire(): void {
    this.retiring = true;
    this.closeIfRetired();
  }

  /**
   * Takes back the unanswered requests whose method is in `methods` (reads, which are safe to send twice):
   * each is cancelled on the server and rejects with RequestWithdrawnError.
   */
  withdraw(methods: ReadonlySet<string>): void {
    for (const [id, p] of this.pending) {
      if (p.method === undefined || !methods.has(p.method)) continue;
      this.pending.delete(id);
      this.send({ t: "cancel", id });
      p.reject(new RequestWithdrawnError(this.server.name));
    }
    this.closeIfRetired();
  }

  /** Whether retire() was called: its closing is this agent's doing, not a lost server. */
  get retired(): boolean {
    return this.retiring;
  }

  private closeIfRetired(): void {
    if (this.retiring && this.pending.size === 0 && this.isOpen) this.close();
  }

  private sendOrFail(id: number, frame: Parameters<typeof encodeFrame>[0]): void {
    const bytes = encodeFrame(frame);
    const pending = this.pending.get(id);
    if (bytes.byteLength > MAX_FRAME_BYTES) {
      this.pending.delete(id);
      pending?.reject(new Error(`request of ${bytes.byteLength} bytes is too large for the server tunnel`));
    } else if (!this.isOpen) {
      this.pending.delete(id);
      pending?.reject(new ConnectionLostError(this.server.name, false, this.closeReason || "not connected"));
    } else {
      sendBatched(this.ws, bytes);
    }
  }

  private send(frame: Parameters<typeof encodeFrame>[0]): void {
    if (this.isOpen) sendBatched(this.ws, encodeFrame(frame));
  }

  private receive(data: Uint8Array): void {
    this.answered = true;
    const frame = decodeServerFrame(data);
    if (frame === undefined) {
      this.closeReason = "the server sent a malformed frame";
      this.ws.terminate();
      return;
    }
    if (frame.t === "res" && frame.leader !== undefined) {
      this.leader = { id: frame.leader, term: frame.term ?? 0 };
      this.leaderListener?.(this.leader);
    }
    this.answer(frame.id, frame);
    if (frame.t === "res" && frame.also !== undefined) for (const id of frame.also) this.answer(id, frame);
    this.closeIfRetired();
  }

  private answer(id: number, frame: ServerFrame): void {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    pending?.resolve(frame);
  }

  private closed(reason: string): void {
    clearInterval(this.keepalive);
    this.closeReason ||= reason;
    const lost = [...this.pending.values()];
    this.pending.clear();
    for (const p of lost) p.reject(new ConnectionLostError(this.server.name, true, this.closeReason));
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
