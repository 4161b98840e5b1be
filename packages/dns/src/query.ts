import type { DecodedPacket, OptAnswer, Packet } from "dns-packet";
import * as packet from "dns-packet";
import { questionBytes } from "./wire.js";

type Question = NonNullable<Packet["questions"]>[number];

/** A query as the handler needs it. */
export interface ParsedQuery {
  question: Question;
  /** The question as it goes back in the answer. */
  questionBytes: Buffer;
  /** All the questions it had (only one is answered). */
  questionCount: number;
  /** The EDNS buffer size, when the query has an OPT record. */
  udpSize: number | undefined;
  /** The EDNS client subnet's address, when given. */
  clientSubnet: string | undefined;
}

// dns-packet's question codec (exported, but not in its type definitions).
const questions = packet as unknown as {
  question: { decode(buf: Buffer, offset: number): Question; encodingLength(q: Question): number } & {
    decode: { bytes: number };
  };
};

/** Names whose wire form is plainly their labels, so the asker's bytes are what dns-packet would write. */
const PLAIN_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
const OPT_TYPE = 41;

/**
 * The question and EDNS of a query; undefined when it does not decode (FORMERR). The common shape — one
 * plain question, maybe an OPT record without options — is read straight from the bytes, with the asker's
 * question kept as sent; anything else goes through dns-packet's decoder.
 */
export function readQuery(query: Buffer): ParsedQuery | undefined {
  return plain(query) ?? decoded(query);
}

function plain(query: Buffer): ParsedQuery | undefined {
  if (query.readUInt16BE(4) !== 1 || query.readUInt16BE(6) !== 0 || query.readUInt16BE(8) !== 0)
    return undefined;
  const additionals = query.readUInt16BE(10);
  if (additionals > 1) return undefined;
  let question: Question;
  try {
    question = questions.question.decode(query, 12);
  } catch {
    return undefined;
  }
  const end = 12 + questions.question.decode.bytes;
  // Labels of plain characters and no compression pointer: the bytes are the name's own encoding.
  if (!PLAIN_NAME.test(question.name) || end !== 12 + question.name.length + 2 + 4) return undefined;
  let udpSize: number | undefined;
  if (additionals === 1) {
    // The root name, type OPT, the buffer size, extended rcode and flags, and no options.
    if (
      query.length !== end + 11 ||
      query[end] !== 0 ||
      query.readUInt16BE(end + 1) !== OPT_TYPE ||
      query.readUInt16BE(end + 9) !== 0
    )
      return undefined;
    udpSize = query.readUInt16BE(end + 3);
  } else if (query.length !== end) return undefined;
  return {
    question,
    questionBytes: query.subarray(12, end),
    questionCount: 1,
    udpSize,
    clientSubnet: undefined,
  };
}

function decoded(query: Buffer): ParsedQuery | undefined {
  let p: DecodedPacket;
  try {
    p = packet.decode(query) as DecodedPacket;
  } catch {
    return undefined;
  }
  const all = p.questions ?? [];
  const opt = (p.additionals ?? []).find((a): a is OptAnswer => a.type === "OPT");
  const question = all[0];
  if (question !== undefined && !wellFormedName(question.name)) return undefined;
  const subnet = opt?.options?.find((x) => x.code === 8) as { ip?: string } | undefined;
  return {
    question: question as Question,
    questionBytes: question ? questionBytes(question) : Buffer.alloc(0),
    questionCount: all.length,
    udpSize: opt?.udpPayloadSize,
    clientSubnet: subnet?.ip || undefined,
  };
}

/**
 * dns-packet joins labels with dots, so a label holding a dot byte cannot be told apart from two labels, and
 * one that is only a dot, or starts or ends with one, would be written back as an empty label (the root)
 * in the middle of a name: the reply would not decode. Such a question is malformed (FORMERR).
 */
function wellFormedName(name: string): boolean {
  if (name === "." || name === "") return true;
  return !name.includes("..") && !name.startsWith(".") && !name.endsWith(".");
}
