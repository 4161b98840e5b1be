import { Packr } from "msgpackr";
import type { RawData } from "ws";

/**
 * The request tunnel between a client agent and a server, carried on the server RPC port as Consul clients
 * reach servers on 8300: HTTP requests (and a few agent RPCs) multiplexed over one websocket, each tagged
 * with an id chosen by the client. Any number may be in flight; a blocking query simply answers late.
 */

/** The websocket path of the tunnel on the server RPC port (next to Raft's). */
export const TUNNEL_PATH = "/cairn/tunnel";

/**
 * Sent by a client agent when it dials, naming what it understands beyond the first version of the tunnel:
 * `shared-answers`, a response frame answering several requests (ResponseFrame.also). A server sends only
 * what the client named, so that agents and servers of different versions keep talking during an upgrade.
 */
export const TUNNEL_FEATURES_HEADER = "x-cairn-tunnel-features";
export const SHARED_ANSWERS = "shared-answers";

/** Largest frame either side sends or accepts (a snapshot travels in one response). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export type HeaderList = [name: string, value: string][];

/** Client to server: an HTTP request for the server's own API. */
export interface RequestFrame {
  t: "req";
  /** Chosen by the client, from 1 up: 0 is no request's. */
  id: number;
  method: string;
  /** Path and query string, e.g. `/v1/kv/a?index=7`. */
  url: string;
  headers: HeaderList;
  body?: Uint8Array;
}

/**
 * Whether a request URL (absolute, or path and query) is a blocking query (`index` in its query string):
 * the only requests a cancel frame is sent and acted on for, since the rest answer promptly anyway.
 */
export function isBlockingQuery(url: string): boolean {
  const query = url.indexOf("?");
  return query >= 0 && /[?&]index=[^&]/.test(url.slice(query));
}

/**
 * Whether a request is a stale read (`stale` or `max_stale` in a GET's query string), which any server
 * answers from its own state: everything else is served by the leader or needs a word from it.
 */
export function isStaleRead(method: string, url: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  const query = url.indexOf("?");
  return query >= 0 && /[?&](?:max_)?stale(?:[=&]|$)/.test(url.slice(query));
}

/** Client to server: the client gave up on request `id` (its caller went away); the server drops it. */
export interface CancelFrame {
  t: "cancel";
  id: number;
}

/** Client to server: a call of one of the server's agent RPCs (the client agent's catalog). */
export interface CallFrame {
  t: "call";
  id: number;
  method: string;
  args: unknown[];
}

/** Server to client: the answer to request `id`. */
export interface ResponseFrame {
  t: "res";
  id: number;
  status: number;
  headers: HeaderList;
  body?: Uint8Array;
  /**
   * Further requests this very answer is for (only to a client that named SHARED_ANSWERS): a change that
   * wakes many held queries with the same answer crosses the tunnel, and is decoded, once.
   */
  also?: number[];
  /**
   * Only on a frame with id 0, which answers no request: the Raft leader's node ID as this server knows it
   * ("" for none), sent when the connection opens and whenever it changes. The client sends what must reach
   * the leader straight there.
   */
  leader?: string;
  /** With `leader`: the server's Raft term, so that a client hearing two servers believes the later news. */
  term?: number;
}

/** Server to client: the outcome of call `id`; `error` set when it failed. */
export interface ResultFrame {
  t: "result";
  id: number;
  value?: unknown;
  error?: string;
}

export type ClientFrame = RequestFrame | CancelFrame | CallFrame;
export type ServerFrame = ResponseFrame | ResultFrame;

// 64-bit integers (KV flags, raft indexes in commands) cross as bigint, bytes as bytes.
const packr = new Packr({ useRecords: false, int64AsType: "bigint", mapsAsObjects: true });

export function encodeFrame(frame: ClientFrame | ServerFrame): Uint8Array {
  return packr.pack(frame);
}

/** Decodes a client's frame; undefined for anything malformed (the connection is then closed). */
export function decodeClientFrame(data: Uint8Array): ClientFrame | undefined {
  const frame = unpack(data);
  if (frame === undefined || typeof frame.id !== "number") return undefined;
  if (frame.t === "cancel") return frame as unknown as CancelFrame;
  if (frame.t === "req" && isText(frame.method) && isText(frame.url) && isHeaders(frame.headers))
    return isBody(frame.body) ? (frame as unknown as RequestFrame) : undefined;
  if (frame.t === "call" && isText(frame.method) && Array.isArray(frame.args))
    return frame as unknown as CallFrame;
  return undefined;
}

/** Decodes a server's frame; undefined for anything malformed. */
export function decodeServerFrame(data: Uint8Array): ServerFrame | undefined {
  const frame = unpack(data);
  if (frame === undefined || typeof frame.id !== "number") return undefined;
  if (frame.t === "res" && typeof frame.status === "number" && isHeaders(frame.headers))
    return isBody(frame.body) && isLeaderNews(frame.leader, frame.term) && isIds(frame.also)
      ? (frame as unknown as ResponseFrame)
      : undefined;
  if (frame.t === "result" && (frame.error === undefined || isText(frame.error)))
    return frame as unknown as ResultFrame;
  return undefined;
}

function unpack(data: Uint8Array): Record<string, unknown> | undefined {
  return unpackRecord(packr, data);
}

/** A msgpack map as a record; undefined for anything else or undecodable bytes. */
export function unpackRecord(packr: Packr, data: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = packr.unpack(data);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isLeaderNews(leader: unknown, term: unknown): boolean {
  return leader === undefined ? term === undefined : isText(leader) && Number.isSafeInteger(term);
}

function isIds(v: unknown): boolean {
  return v === undefined || (Array.isArray(v) && v.every((id) => Number.isSafeInteger(id) && id > 0));
}

function isText(v: unknown): v is string {
  return typeof v === "string";
}

function isBody(v: unknown): boolean {
  return v === undefined || v instanceof Uint8Array;
}

function isHeaders(v: unknown): v is HeaderList {
  return (
    Array.isArray(v) && v.every((h) => Array.isArray(h) && h.length === 2 && isText(h[0]) && isText(h[1]))
  );
}

/** Headers that describe one HTTP hop, not the request: never carried through the tunnel. */
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "proxy-connection",
]);

export function headerList(headers: Headers): HeaderList {
  const out: HeaderList = [];
  headers.forEach((value, name) => {
    if (!HOP_HEADERS.has(name)) out.push([name, value]);
  });
  return out;
}

/** `headerList` of a plain header object (any case), names lower-cased as a Headers object gives them. */
export function plainHeaderList(headers: Readonly<Record<string, string>>): HeaderList {
  const out: HeaderList = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!HOP_HEADERS.has(lower)) out.push([lower, value]);
  }
  return out;
}

/** A websocket message as bytes, however ws delivered it. */
export function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}
