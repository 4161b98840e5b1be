import { Packr } from "msgpackr";

/**
 * Wire frames of a server connection. Every frame is a msgpack array whose first element is its kind, so one
 * connection multiplexes Raft traffic and snapshot streams (the agent's server RPC has a route of its own).
 *
 * A connection has a direction: the dialer sends HELLO, RAFT and the SNAPSHOT_* data frames; the
 * acceptor answers with WELCOME, SNAPSHOT_ACK and SNAPSHOT_DONE. A frame in the wrong direction
 * is as malformed as an undecodable one.
 */
export const FrameKind = {
  hello: 0,
  welcome: 1,
  raft: 2,
  // 3 and 4 carried request/response RPC, now the agent's own (`/cairn/rpc`): never reuse them.
  snapshotBegin: 5,
  snapshotChunk: 6,
  snapshotEnd: 7,
  snapshotAck: 8,
  snapshotDone: 9,
} as const;

export const PROTOCOL_VERSION = 1;

export type DialerFrame<M> =
  | {
      kind: typeof FrameKind.hello;
      version: number;
      cluster: string;
      from: string;
      to: string;
      /** Where the dialer itself accepts server connections, so the acceptor can dial back. */
      address: string;
    }
  | { kind: typeof FrameKind.raft; messages: M[] }
  | { kind: typeof FrameKind.snapshotBegin; stream: number; message: M; size: number }
  | { kind: typeof FrameKind.snapshotChunk; stream: number; seq: number; data: Uint8Array }
  | { kind: typeof FrameKind.snapshotEnd; stream: number; crc: number };

export type AcceptorFrame =
  | { kind: typeof FrameKind.welcome; node: string }
  | { kind: typeof FrameKind.snapshotAck; stream: number; seq: number }
  | { kind: typeof FrameKind.snapshotDone; stream: number; ok: boolean; reason: string };

export type Frame<M> = DialerFrame<M> | AcceptorFrame;

const packr = new Packr({ useRecords: false, moreTypes: false });

export function encodeFrame<M>(frame: Frame<M>): Buffer {
  switch (frame.kind) {
    case FrameKind.hello:
      return packr.pack([frame.kind, frame.version, frame.cluster, frame.from, frame.to, frame.address]);
    case FrameKind.welcome:
      return packr.pack([frame.kind, frame.node]);
    case FrameKind.raft:
      return packr.pack([frame.kind, frame.messages]);
    case FrameKind.snapshotBegin:
      return packr.pack([frame.kind, frame.stream, frame.message, frame.size]);
    case FrameKind.snapshotChunk:
      return packr.pack([frame.kind, frame.stream, frame.seq, frame.data]);
    case FrameKind.snapshotEnd:
      return packr.pack([frame.kind, frame.stream, frame.crc]);
    case FrameKind.snapshotAck:
      return packr.pack([frame.kind, frame.stream, frame.seq]);
    case FrameKind.snapshotDone:
      return packr.pack([frame.kind, frame.stream, frame.ok, frame.reason]);
  }
}

export type Decoded<F> = { ok: true; frame: F } | { ok: false; reason: string };

const isUint = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isString = (v: unknown): v is string => typeof v === "string";
const isBool = (v: unknown): v is boolean => typeof v === "boolean";

function unpackArray(bytes: Uint8Array): unknown[] | string {
  let value: unknown;
  try {
    value = packr.unpack(bytes);
  } catch (err) {
    return `undecodable frame: ${(err as Error).message}`;
  }
  if (!Array.isArray(value) || value.length === 0) return "frame is not a non-empty array";
  return value;
}

const bad = (reason: string) => ({ ok: false as const, reason });

/** Decodes a frame sent by the dialing side; `isMessage` checks the shape of each Raft message. */
export function decodeDialerFrame<M>(
  bytes: Uint8Array,
  isMessage: (v: unknown) => v is M,
): Decoded<DialerFrame<M>> {
  const a = unpackArray(bytes);
  if (typeof a === "string") return bad(a);
  const [kind, x, y, z, w, v] = a;
  switch (kind) {
    case FrameKind.hello:
      if (isUint(x) && isString(y) && isString(z) && isString(w) && isString(v) && a.length === 6) {
        return { ok: true, frame: { kind, version: x, cluster: y, from: z, to: w, address: v } };
      }
      return bad("malformed hello");
    case FrameKind.raft:
      if (Array.isArray(x) && a.length === 2 && x.every(isMessage)) {
        return { ok: true, frame: { kind, messages: x as M[] } };
      }
      return bad("malformed raft batch");
    case FrameKind.snapshotBegin:
      if (isUint(x) && isMessage(y) && isUint(z) && a.length === 4) {
        return { ok: true, frame: { kind, stream: x, message: y, size: z } };
      }
      return bad("malformed snapshot begin");
    case FrameKind.snapshotChunk:
      if (isUint(x) && isUint(y) && z instanceof Uint8Array && a.length === 4) {
        return { ok: true, frame: { kind, stream: x, seq: y, data: z } };
      }
      return bad("malformed snapshot chunk");
    case FrameKind.snapshotEnd:
      if (isUint(x) && isUint(y) && a.length === 3) return { ok: true, frame: { kind, stream: x, crc: y } };
      return bad("malformed snapshot end");
    default:
      return bad(`unexpected frame kind ${JSON.stringify(kind)} from dialer`);
  }
}

/** Decodes a frame sent back by the accepting side. */
export function decodeAcceptorFrame(bytes: Uint8Array): Decoded<AcceptorFrame> {
  const a = unpackArray(bytes);
  if (typeof a === "string") return bad(a);
  const [kind, x, y, z] = a;
  switch (kind) {
    case FrameKind.welcome:
      if (isString(x) && a.length === 2) return { ok: true, frame: { kind, node: x } };
      return bad("malformed welcome");
    case FrameKind.snapshotAck:
      if (isUint(x) && isUint(y) && a.length === 3) return { ok: true, frame: { kind, stream: x, seq: y } };
      return bad("malformed snapshot ack");
    case FrameKind.snapshotDone:
      if (isUint(x) && isBool(y) && isString(z) && a.length === 4) {
        return { ok: true, frame: { kind, stream: x, ok: y, reason: z } };
      }
      return bad("malformed snapshot done");
    default:
      return bad(`unexpected frame kind ${JSON.stringify(kind)} from acceptor`);
  }
}
