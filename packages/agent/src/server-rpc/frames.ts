import { Packr } from "msgpackr";
import { unpackRecord } from "../tunnel/protocol.js";

/**
 * The servers' own request/response RPC (forwarded writes and reads, session renewals, operator calls), on
 * the shared server port next to Raft's path: one websocket per peer, any number of requests in flight,
 * each tagged with an id chosen by the caller.
 */
export const SERVER_RPC_PATH = "/cairn/rpc";

/** Largest frame either side sends or accepts: a forwarded write carries at most one Raft entry. */
export const MAX_RPC_FRAME_BYTES = 64 * 1024 * 1024;

export interface CallFrame {
  t: "call";
  id: number;
  method: string;
  payload: unknown;
}

export interface ReplyFrame {
  t: "reply";
  id: number;
  ok: boolean;
  payload: unknown;
}

// Same settings as Raft's frames had: payloads that need 64-bit integers are packed by rpc-codec first.
const packr = new Packr({ useRecords: false, moreTypes: false });

export function encodeRpcFrame(frame: CallFrame | ReplyFrame): Buffer {
  return packr.pack(frame);
}

export function decodeCall(data: Uint8Array): CallFrame | undefined {
  const f = unpack(data);
  return f?.t === "call" && typeof f.id === "number" && typeof f.method === "string"
    ? (f as unknown as CallFrame)
    : undefined;
}

export function decodeReply(data: Uint8Array): ReplyFrame | undefined {
  const f = unpack(data);
  return f?.t === "reply" && typeof f.id === "number" && typeof f.ok === "boolean"
    ? (f as unknown as ReplyFrame)
    : undefined;
}

function unpack(data: Uint8Array): Record<string, unknown> | undefined {
  return unpackRecord(packr, data);
}
