import {
  AGENT_NODE_HEADER,
  SharedQueries,
  shareKey,
  signalGone,
  varyWithAcceptEncoding,
  withKnownForm,
} from "@cairn/api";
import type { OutgoingTls } from "@cairn/raft";
import type { Logger } from "pino";
import type { WholeForm } from "./answer-groups.js";
import {
  ConnectionLostError,
  type LeaderNews,
  RequestCancelledError,
  RequestWithdrawnError,
  type ServerRef,
  TunnelConnection,
} from "./connection.js";
import {
  type HeaderList,
  headerList,
  isBlockingQuery,
  isStaleRead,
  MAX_FRAME_BYTES,
  type RequestFrame,
  type ResponseFrame,
} from "./protocol.js";
import { requestToken } from "./request-token.js";

export interface TunnelPoolOptions {
  /** Servers to use, best known first (alive servers from gossip). */
  servers: () => readonly ServerRef[];
  log: Logger;
  /** The agent's `default` ACL token, added to requests that carry none (as a Consul client agent does). */
  defaultToken?: () => string;
  /** This agent's node name: servers take `near=_agent`, a new session's node and the like from it. */
  agentNode?: string;
  /** Counts Consul's client RPC metrics (`consul.client.rpc`, `consul.client.rpc.failed`). */
  count?: (name: string) => void;
  /** TLS for dialing servers (verify_outgoing); undefined: plaintext. Asked per dial, so reloads apply. */
  tls?: () => OutgoingTls | undefined;
  /** How long dialing one server may take. */
  connectTimeoutMs?: number;
  /** Which servers these are, for errors (`datacenter "dc2"`); absent: this agent's own. */
  scope?: string;
  random?: () => number;
  /** The clock that decides whether a blocking query may still join an identical one (shared-queries.ts). */
  now?: () => number;
}

/**
 * What a request sent through the tunnel came to: the server's answer, or why there is none (a 500). An
 * answer that may go to several callers (shared-queries.ts) is made into its response form once, for all.
 */
type Reply = Sent | SharedForm;

/** What one request to a server came to. */
type Sent = ResponseFrame | Failure;

interface Failure {
  failure: string;
}

interface SharedForm {
  form: WholeForm;
}

/** Consul's answer when a client agent knows of no server. */
export const NO_SERVERS = "No known Consul servers";

/** Methods whose request may be sent again after a connection broke under it: nothing they do can double. */
const RETRY_SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** How long a leader that could not be reached is left alone before requests go straight to it again. */
const LEADER_RETRY_MS = 5_000;

/** How often a reported leader that gossip does not list (yet) is looked up again among the servers. */
const LEADER_LOOKUP_MS = 1_000;

/** The leader as the servers last reported it, and the server gossip lists under its ID once looked up. */
interface ReportedLeader extends LeaderNews {
  ref: ServerRef | undefined;
  lookedUpAt: number;
}

/**
 * A client agent's way to the servers: one tunnel connection to one server it picked, shared by every
 * request (and a second one to the leader, below). When that server cannot be reached, or the connection breaks, the next server is used and the
 * request is retried there if that is safe (Consul's client RPC rules): it never reached a server, or it
 * only reads. A write lost in flight answers 500, its outcome unknown.
 *
 * The servers report their leader on the tunnel; when that server is not the one in use, a second
 * connection goes to it and carries everything but stale reads, which the leader would serve or be asked
 * about anyway: a write or a default read then crosses one hop less. Stale reads stay on the first server,
 * so they spread over the servers as in Consul. The leader's connection is a shortcut only: when it fails
 * before a request reached it, the request takes the usual way.
 */
export class TunnelPool {
  private current: Promise<TunnelConnection> | undefined;
  /** The server `current` is connected to, once it is. */
  private currentServerName: string | undefined;
  /** The open connection to the leader, when that is not `current`'s server. */
  private toLeader: TunnelConnection | undefined;
  /** Set while the leader is being dialed (in the background: no request waits for it). */
  private dialingLeader = false;
  private leader: ReportedLeader = { id: "", term: 0, ref: undefined, lookedUpAt: 0 };
  /** Server name -> when it last failed; those are tried last. */
  private readonly failures = new Map<string, number>();
  private closed = false;
  /** Identical blocking queries in flight, each sent to a server once for all its callers. */
  private readonly shared: SharedQueries<Reply>;

  constructor(private readonly o: TunnelPoolOptions) {
    this.shared = new SharedQueries(o.now ?? Date.now);
  }

  /**
   * Answers an HTTP request through a server; failures become 500 responses, as Consul's RPC errors do.
   * `signal` cancels it; by default a blocking query's is the request's own (its caller went away, so the
   * server drops the held query), and other requests, answered promptly anyway, run to the end without one:
   * a request's signal costs an AbortController and listeners on every request. Identical blocking queries
   * share one request to the server (shared-queries.ts).
   */
  async forward(
    request: Request,
    signal: AbortSignal | undefined = blockingSignal(request),
  ): Promise<Response> {
    let frame: Omit<RequestFrame, "id" | "t">;
    try {
      frame = await this.frameOf(request);
    } catch (err) {
      return text(413, (err as Error).message);
    }
    const share = shareKey(frame);
    const reply =
      share === undefined
        ? await this.send(frame, signal)
        : await this.shared.answer(
            share,
            signal === undefined ? undefined : signalGone(signal),
            async (upstream) => {
              const reply = await this.send(frame, upstream);
              return "failure" in reply ? reply : (sharedForm(reply) ?? reply);
            },
            () => ({ failure: new RequestCancelledError().message }),
          );
    return responseOf(reply);
  }

  /** Sends `frame` to a server, counted as one of Consul's client RPCs. */
  private async send(frame: Omit<RequestFrame, "id" | "t">, signal: AbortSignal | undefined): Promise<Sent> {
    const reply = await this.route(frame, signal);
    this.o.count?.(
      "failure" in reply || reply.status === 500 ? "consul.client.rpc.failed" : "consul.client.rpc",
    );
    return reply;
  }

  private async route(frame: Omit<RequestFrame, "id" | "t">, signal: AbortSignal | undefined): Promise<Sent> {
    const tried = new Set<string>();
    const toLeader = isStaleRead(frame.method, frame.url) ? undefined : this.leaderConnection();
    if (toLeader !== undefined) {
      const answer = await this.attempt(toLeader, frame, signal, tried);
      if (answer) return answer;
    }
    for (;;) {
      let conn: TunnelConnection;
      try {
        // The caller's deadline covers dialing too (a server that accepts but never answers the handshake).
        conn = await (signal ? untilAborted(this.connection(tried), signal) : this.connection(tried));
      } catch (err) {
        return { failure: (err as Error).message };
      }
      const answer = await this.attempt(conn, frame, signal, tried);
      if (answer) return answer;
    }
  }

  /** One try on `conn`: the answer, or undefined when the request may be sent to another server. */
  private async attempt(
    conn: TunnelConnection,
    frame: Omit<RequestFrame, "id" | "t">,
    signal: AbortSignal | undefined,
    tried: Set<string>,
  ): Promise<Sent | undefined> {
    try {
      return await conn.request(frame, signal);
    } catch (err) {
      if (err instanceof RequestCancelledError) return { failure: err.message };
      if (err instanceof RequestWithdrawnError) return undefined;
      if (!(err instanceof ConnectionLostError)) return { failure: (err as Error).message };
      this.failed(conn, tried);
      if (err.sent && !RETRY_SAFE.has(frame.method)) {
        return {
          failure: `rpc error making call: ${err.message}; the request may or may not have been applied`,
        };
      }
      this.o.log.debug(
        { server: conn.server.name, err: err.message },
        "retrying a request on another server",
      );
      return undefined;
    }
  }

  /** Calls an agent RPC on a server; retried elsewhere only when it never reached one. */
  async call(method: string, args: unknown[]): Promise<unknown> {
    const tried = new Set<string>();
    for (;;) {
      const conn = await this.connection(tried);
      try {
        return await conn.call(method, args);
      } catch (err) {
        if (!(err instanceof ConnectionLostError)) throw err;
        this.failed(conn, tried);
        if (err.sent) throw new Error(`rpc error making call: ${err.message}`);
      }
    }
  }

  /**
   * Gossip says `server` failed or left: requests from now on go to another server, as Consul's router drops
   * a failed server from its list at once instead of waiting for the connection to time out. Requests
   * already sent there are left to finish (gossip can be wrong about a busy server); the connection closes
   * when they have.
   */
  serverGone(server: string): void {
    const pending = this.current;
    if (pending !== undefined) {
      void pending.then(
        (conn) => {
          if (conn.server.name !== server || this.current !== pending) return;
          this.current = undefined;
          this.currentServerName = undefined;
          this.failures.set(server, Date.now());
          this.o.log.info({ server }, "gossip reports the server gone; using another one");
          conn.retire();
        },
        () => {},
      );
    }
    if (this.leader.ref?.name === server) {
      this.failures.set(server, Date.now());
      this.leader.ref = undefined;
    }
    if (this.toLeader?.server.name === server) this.dropLeaderConnection();
  }

  /** The server currently used, if connected. */
  async currentServer(): Promise<string | undefined> {
    const conn = await this.current?.catch(() => undefined);
    return conn?.isOpen ? conn.server.name : undefined;
  }

  /** The leader's node ID as the servers last reported it; "" for none. */
  get reportedLeader(): string {
    return this.leader.id;
  }

  /** The leader's server, if a connection to it is open beside the current one. */
  leaderServer(): string | undefined {
    return this.toLeader?.isOpen ? this.toLeader.server.name : undefined;
  }

  close(): void {
    this.closed = true;
    void this.current?.then(
      (c) => c.close(),
      () => {},
    );
    this.toLeader?.close();
    this.current = undefined;
    this.currentServerName = undefined;
    this.toLeader = undefined;
  }

  private failed(conn: TunnelConnection, tried: Set<string>): void {
    tried.add(conn.server.name);
    this.failures.set(conn.server.name, Date.now());
  }

  /** The shared connection, dialed afresh (skipping servers this request already failed on) when it is gone. */
  private async connection(tried: ReadonlySet<string>): Promise<TunnelConnection> {
    for (;;) {
      if (this.closed) throw new Error("the agent is shutting down");
      if (this.current === undefined) {
        this.current = this.dial(tried);
        this.currentServerName = undefined;
      }
      const pending = this.current;
      let conn: TunnelConnection;
      try {
        conn = await pending;
      } catch (err) {
        if (this.current === pending) this.current = undefined;
        throw err;
      }
      if (conn.isOpen) {
        if (this.current === pending) this.currentServerName = conn.server.name;
        return conn;
      }
      if (this.current === pending) this.current = undefined;
    }
  }

  private async dial(tried: ReadonlySet<string>): Promise<TunnelConnection> {
    const known = this.o.servers();
    if (known.length === 0) throw new Error(NO_SERVERS);
    let last: Error | undefined;
    for (const server of this.order(known, tried)) {
      try {
        return await this.open(server);
      } catch (err) {
        last = err as Error;
      }
    }
    const of = this.o.scope === undefined ? "" : ` of ${this.o.scope}`;
    throw new Error(
      `rpc error: no server${of} could be reached (${last?.message ?? "each one failed during this request"})`,
    );
  }

  private async open(server: ServerRef): Promise<TunnelConnection> {
    let conn: TunnelConnection;
    try {
      conn = await TunnelConnection.open(server, this.o.connectTimeoutMs ?? 5_000, this.o.tls?.());
    } catch (err) {
      this.failures.set(server.name, Date.now());
      this.o.log.warn({ server: server.name, err: (err as Error).message }, "cannot reach server");
      throw err;
    }
    this.failures.delete(server.name);
    conn.onClose(() => {
      if (!this.closed && !conn.retired)
        this.o.log.warn({ server: server.name }, "connection to server lost");
    });
    conn.onLeader((news) => this.leaderReported(news));
    this.o.log.debug({ server: server.name, address: server.rpcAddress }, "connected to server");
    return conn;
  }

  /**
   * A server named a new leader: requests for it go there from now on. News from an earlier term than the
   * last is old (a leader cut off from the others may not know it was replaced) and is ignored. Writes
   * already sent to the former leader finish there; reads still unanswered are sent again the usual way,
   * since a leader that stopped answering (paused, cut off) would otherwise hold them until the keepalive
   * gives up on it.
   */
  private leaderReported({ id, term }: LeaderNews): void {
    if (term < this.leader.term || (id === this.leader.id && term === this.leader.term)) return;
    const changed = id !== this.leader.id;
    this.leader = { id, term, ref: changed ? undefined : this.leader.ref, lookedUpAt: 0 };
    if (!changed) return;
    const former = this.toLeader;
    this.dropLeaderConnection();
    former?.withdraw(RETRY_SAFE);
    // Dialed now, so that the connection is ready for the next request (unless this is news from the server
    // being connected as the current one, which may be the leader itself: the next request decides).
    if (this.currentServerName !== undefined) this.leaderConnection();
  }

  /**
   * The leader's server when requests for the leader should go straight to it: it is known to gossip, it is
   * not the server already in use, and it has not just failed to answer.
   */
  private leaderRef(): ServerRef | undefined {
    const leader = this.leader;
    if (leader.id === "") return undefined;
    const now = Date.now();
    if (leader.ref === undefined) {
      // Looked up now and then, not per request: the servers are picked out of every member gossip knows.
      if (now - leader.lookedUpAt < LEADER_LOOKUP_MS) return undefined;
      leader.lookedUpAt = now;
      leader.ref = this.o.servers().find((s) => s.id === leader.id);
      if (leader.ref === undefined) return undefined;
    }
    if (leader.ref.name === this.currentServerName) {
      if (this.toLeader !== undefined) this.dropLeaderConnection();
      return undefined;
    }
    const failedAt = this.failures.get(leader.ref.name);
    return failedAt !== undefined && now - failedAt < LEADER_RETRY_MS ? undefined : leader.ref;
  }

  /**
   * The open connection to the leader when requests for it should take it; otherwise undefined, and a dial
   * starts in the background when the leader is worth one, so that no request waits on it (a leader this
   * agent cannot reach would cost each such request the connect timeout).
   */
  private leaderConnection(): TunnelConnection | undefined {
    const leader = this.leaderRef();
    if (leader === undefined) return undefined;
    const conn = this.toLeader;
    if (conn?.isOpen && conn.server.name === leader.name) return conn;
    if (conn !== undefined) this.dropLeaderConnection();
    if (!this.dialingLeader && !this.closed) this.dialLeader(leader);
    return undefined;
  }

  private dialLeader(leader: ServerRef): void {
    this.dialingLeader = true;
    this.open(leader).then(
      (conn) => {
        this.dialingLeader = false;
        // Kept only if that server still leads by the latest news, and the pool is still open.
        if (this.closed || this.leader.ref !== leader || this.toLeader !== undefined) conn.retire();
        else this.toLeader = conn;
      },
      () => {
        this.dialingLeader = false;
        // Looked up again later: gossip may know a newer address for it.
        if (this.leader.ref === leader) this.leader.ref = undefined;
      },
    );
  }

  /** Requests already sent to the leader's connection finish; then it closes. */
  private dropLeaderConnection(): void {
    this.toLeader?.retire();
    this.toLeader = undefined;
  }

  /** Servers not failed yet in random order, then those that failed, longest ago first. */
  private order(known: readonly ServerRef[], tried: ReadonlySet<string>): ServerRef[] {
    const random = this.o.random ?? Math.random;
    const fresh: ServerRef[] = [];
    const failed: ServerRef[] = [];
    for (const s of known) {
      if (tried.has(s.name)) continue;
      (this.failures.has(s.name) ? failed : fresh).push(s);
    }
    for (let i = fresh.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [fresh[i], fresh[j]] = [fresh[j]!, fresh[i]!];
    }
    failed.sort((a, b) => (this.failures.get(a.name) ?? 0) - (this.failures.get(b.name) ?? 0));
    return [...fresh, ...failed];
  }

  private async frameOf(request: Request): Promise<Omit<RequestFrame, "id" | "t">> {
    const declared = Number(request.headers.get("content-length") ?? 0);
    if (declared > MAX_FRAME_BYTES) throw new Error(`Request body too large (${declared} bytes)`);
    // Reading `body` would build a full fetch Request around node's request; arrayBuffer() reads it directly.
    const body =
      request.method === "GET" || request.method === "HEAD"
        ? undefined
        : new Uint8Array(await request.arrayBuffer());
    if (body !== undefined && body.byteLength > MAX_FRAME_BYTES)
      throw new Error(`Request body too large (${body.byteLength} bytes)`);
    const url = request.url;
    // The agent node header is this agent's to set, never a caller's.
    const headers = headerList(request.headers).filter(([name]) => name !== AGENT_NODE_HEADER);
    const token = this.o.defaultToken?.() ?? "";
    if (token !== "" && requestToken(url, request.headers) === "") headers.push(["x-consul-token", token]);
    if (this.o.agentNode !== undefined) headers.push([AGENT_NODE_HEADER, this.o.agentNode]);
    return {
      method: request.method,
      url: url.slice(url.indexOf("/", url.indexOf("//") + 2)),
      headers,
      ...(body !== undefined && body.byteLength > 0 ? { body } : {}),
    };
  }
}

/** A blocking query is cancelled when its caller goes away. */
function blockingSignal(request: Request): AbortSignal | undefined {
  return isBlockingQuery(request.url) ? request.signal : undefined;
}

/** `promise`, or a RequestCancelledError as soon as `signal` aborts (the promise then runs on, unobserved). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new RequestCancelledError());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new RequestCancelledError());
    signal.addEventListener("abort", abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", abort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", abort);
        reject(err);
      },
    );
  });
}

const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A server's answer as this agent's response, with plain headers (Vary included) and a known form, so
 * that neither the HTTP edge nor @hono/node-server converts them into a Headers object to write them.
 */
function responseOf(reply: Reply): Response {
  if ("failure" in reply) return text(500, reply.failure);
  if ("form" in reply) return formResponse(reply.form);
  // One frame the server sent for several of this agent's requests (ResponseFrame.also): one form for all.
  const shared = reply.also !== undefined ? sharedForm(reply) : undefined;
  if (shared !== undefined) return formResponse(shared.form);
  const { status } = reply;
  const body = NO_BODY.has(status) ? null : (reply.body ?? null);
  const headers = plainHeaders(reply.headers);
  if (headers === undefined) return new Response(body, { status, headers: reply.headers });
  return withKnownForm(new Response(body, { status, headers }), { status, body, headers, reusable: false });
}

function formResponse(form: WholeForm): Response {
  return withKnownForm(new Response(form.body, { status: form.status, headers: form.headers }), form);
}

/**
 * An answer that may go to several callers as one reusable form: the HTTP edge then renders (or
 * compresses) it once for all of them; undefined when its headers do not fit a plain object.
 */
function sharedForm(reply: ResponseFrame): SharedForm | undefined {
  let shared = sharedForms.get(reply);
  if (shared === undefined) {
    const { status } = reply;
    const headers = plainHeaders(reply.headers);
    if (headers === undefined) return undefined;
    const body = NO_BODY.has(status) ? null : (reply.body ?? null);
    shared = { form: { status, body, headers, reusable: true } };
    sharedForms.set(reply, shared);
  }
  return shared;
}

/** The form made of each frame that answers several requests, for all of them. */
const sharedForms = new WeakMap<ResponseFrame, SharedForm>();

/** The list as a plain object with Vary covering Accept-Encoding; undefined if a name repeats. */
function plainHeaders(list: HeaderList): Record<string, string> | undefined {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of list) {
    if (Object.hasOwn(out, name)) return undefined;
    out[name] = value;
  }
  out.vary = varyWithAcceptEncoding(out.vary);
  return out;
}

function text(status: number, message: string): Response {
  return new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}
