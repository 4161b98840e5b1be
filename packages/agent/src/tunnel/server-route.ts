import type { IncomingMessage } from "node:http";
import { type KnownForm, knownForm, withKnownBody } from "@cairn/api";
import type { Logger } from "pino";
import type { RawData, WebSocket } from "ws";
import { AnswerGroups, type WholeForm } from "./answer-groups.js";
import { sendBatched } from "./batched-send.js";
import { frameRequest } from "./frame-request.js";
import {
  type CallFrame,
  decodeClientFrame,
  encodeFrame,
  headerList,
  isBlockingQuery,
  MAX_FRAME_BYTES,
  plainHeaderList,
  type RequestFrame,
  type ResponseFrame,
  type ServerFrame,
  SHARED_ANSWERS,
  TUNNEL_FEATURES_HEADER,
  toBytes,
} from "./protocol.js";

export type TunnelFetch = (request: Request) => Response | Promise<Response>;

/** Agent RPCs a server answers for its client agents, by method name; arguments arrive as sent. */
export type TunnelCalls = Readonly<Record<string, (...args: unknown[]) => Promise<unknown>>>;

export interface TunnelRouteOptions {
  calls?: TunnelCalls;
  log?: Logger;
  /** The Raft leader as this server knows it: told to each client when it connects and on every change. */
  leader?: LeaderSource;
}

/** The leader's node ID (null for none known) and the Raft term this server is in. */
export interface LeaderNow {
  id: string | null;
  term: number;
}

export interface LeaderSource {
  current(): LeaderNow;
  /** Calls `listener` after the known leader changed. */
  subscribe(listener: () => void): void;
}

const BODYLESS = new Set(["GET", "HEAD"]);

/**
 * Requests one client connection may have open at once (blocking queries included), far beyond what one
 * agent's applications hold, so a runaway client cannot tie up unbounded server memory.
 */
const MAX_IN_FLIGHT = 16_384;

/**
 * The server end of the tunnel: each request is answered by the server's own HTTP app, in process, as if
 * it had arrived on its HTTP port. A request is aborted (its blocking query released) when the client
 * cancels it or the connection closes.
 */
export function tunnelRoute(
  fetch: TunnelFetch,
  options: TunnelRouteOptions = {},
): (ws: WebSocket, req: IncomingMessage) => void {
  // One subscription for the route, fanned out to its connections (there may be thousands): the leader is
  // read once per change, not once per connection.
  const leader = options.leader;
  const leaderNews = new Set<(now: LeaderNow) => void>();
  leader?.subscribe(() => {
    const now = leader.current();
    for (const tell of leaderNews) tell(now);
  });
  return (ws, req) => {
    const from = `${req.socket.remoteAddress}:${req.socket.remotePort}`;
    // A blocking query's abort releases it when the client cancels; other requests answer promptly and
    // carry no signal (an AbortController per request was a measurable share of the tunnel's cost).
    const inFlight = new Map<number, AbortController | null>();
    const send = (frame: ServerFrame) => {
      if (ws.readyState === ws.OPEN) sendBatched(ws, encodeFrame(frame));
    };
    // Answers that many requests share go as one frame to a client that understands it.
    const answers = sharesAnswers(req) ? new AnswerGroups(send, formFrame) : undefined;
    let told: LeaderNow | undefined;
    const tellLeader = (now: LeaderNow) => {
      if (told?.id === now.id && told.term === now.term) return;
      told = now;
      send(leaderNewsFrame(now.id ?? "", now.term));
    };
    if (leader) {
      leaderNews.add(tellLeader);
      tellLeader(leader.current());
    }
    ws.on("message", (data: RawData) => {
      const frame = decodeClientFrame(toBytes(data));
      if (frame === undefined) {
        options.log?.warn({ from }, "closing a tunnel connection that sent a malformed frame");
        ws.close(1002, "malformed frame");
        return;
      }
      if (frame.t === "cancel") {
        inFlight.get(frame.id)?.abort();
        inFlight.delete(frame.id);
      } else if (frame.t === "call") {
        void answerCall(frame, options.calls ?? {}).then(send);
      } else if (inFlight.size >= MAX_IN_FLIGHT) {
        send(
          failure(frame.id, `more than ${MAX_IN_FLIGHT} requests in flight on one client connection`, 429),
        );
      } else {
        const abort = isBlockingQuery(frame.url) ? new AbortController() : null;
        inFlight.set(frame.id, abort);
        void answerRequest(frame, fetch, abort?.signal).then((answered) => {
          if (inFlight.get(frame.id) !== abort) return;
          inFlight.delete(frame.id);
          if (!("form" in answered)) send(answered);
          else if (answers === undefined) send(formFrame(frame.id, answered.form));
          else answers.add(frame.id, answered.form);
        });
      }
    });
    ws.on("close", () => {
      leaderNews.delete(tellLeader);
      for (const abort of inFlight.values()) abort?.abort();
      inFlight.clear();
    });
    ws.on("error", (err) => options.log?.debug({ from, err: err.message }, "tunnel connection error"));
  };
}

/**
 * News of the leader: a response frame for id 0, which no request has, so that a client that does not know
 * the `leader` field drops it as the answer to nothing.
 */
function leaderNewsFrame(leader: string, term: number): ServerFrame {
  return { t: "res", id: 0, status: 200, headers: [], leader, term };
}

/** Whether the client named SHARED_ANSWERS when it dialed. */
function sharesAnswers(req: IncomingMessage): boolean {
  const named = req.headers[TUNNEL_FEATURES_HEADER];
  const list = Array.isArray(named) ? named.join(",") : (named ?? "");
  return list.split(",").some((feature) => feature.trim() === SHARED_ANSWERS);
}

/**
 * The answer to a request: its frame, or the reusable form whose status, headers and body are all of it,
 * which the answers to other requests may then share (answer-groups.ts).
 */
type Answered = ServerFrame | { form: WholeForm };

async function answerRequest(
  frame: RequestFrame,
  fetch: TunnelFetch,
  signal: AbortSignal | undefined,
): Promise<Answered> {
  const { id } = frame;
  try {
    const sent = frame.body !== undefined && !BODYLESS.has(frame.method) ? frame.body : undefined;
    const request = frameRequest(frame, sent, signal);
    // The API takes a sent body's bytes as they are rather than streaming them out of the Request.
    const response = await fetch(sent === undefined ? request : withKnownBody(request, sent));
    const form = knownForm(response);
    const known = form ? form.body : new Uint8Array(await response.arrayBuffer());
    const size = byteLengthOf(known);
    if (size > MAX_FRAME_BYTES - 64 * 1024) {
      return failure(id, `response of ${size} bytes is too large for the client tunnel`);
    }
    // A whole form is encoded once it is known which requests share it (formFrame).
    if (isWhole(form, response.status)) return { form };
    const body = bytesOf(known);
    return {
      t: "res",
      id,
      status: response.status,
      headers: form?.headers ? plainHeaderList(form.headers) : headerList(response.headers),
      ...(body.byteLength > 0 ? { body } : {}),
    };
  } catch (err) {
    return failure(id, (err as Error).message);
  }
}

function isWhole(form: KnownForm | undefined, status: number): form is WholeForm {
  return form?.reusable === true && form.headers !== undefined && form.status === status;
}

/** The frame answering request `id` with a whole form. */
function formFrame(id: number, form: WholeForm): ResponseFrame {
  const body = bytesOf(form.body);
  return {
    t: "res",
    id,
    status: form.status,
    headers: plainHeaderList(form.headers),
    ...(body.byteLength > 0 ? { body } : {}),
  };
}

const NO_BYTES = new Uint8Array(0);

/**
 * The bytes of a body the API route still holds (known-form.ts): reading them back out of the Response
 * would build a full fetch Response and stream it, which cost more than the rest of the forwarding.
 */
function bytesOf(body: Uint8Array | string | null): Uint8Array {
  if (body === null) return NO_BYTES;
  return typeof body === "string" ? Buffer.from(body) : body;
}

function byteLengthOf(body: Uint8Array | string | null): number {
  if (body === null) return 0;
  return typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
}

function failure(id: number, message: string, status = 500): ServerFrame {
  return {
    t: "res",
    id,
    status,
    headers: [["content-type", "text/plain; charset=utf-8"]],
    body: new TextEncoder().encode(message),
  };
}

async function answerCall(frame: CallFrame, calls: TunnelCalls): Promise<ServerFrame> {
  const call = Object.hasOwn(calls, frame.method) ? calls[frame.method] : undefined;
  if (call === undefined) return { t: "result", id: frame.id, error: `unknown agent RPC ${frame.method}` };
  try {
    return { t: "result", id: frame.id, value: await call(...frame.args) };
  } catch (err) {
    return { t: "result", id: frame.id, error: (err as Error).message };
  }
}
