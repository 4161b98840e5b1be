import type { Answer } from "dns-packet";
import * as packet from "dns-packet";
import { bare } from "./names.js";
import type { Transport } from "./recursor.js";
import { nameLength, recordBytes } from "./wire.js";

/** What goes into one response, before it is arranged for the asker. */
export interface ResponseParts {
  id: number;
  /** Header flags without TC (set here when answers had to go). */
  flags: number;
  /** The question as it goes on the wire (for a well-formed question, as the asker sent it). */
  question: Buffer;
  /** The question's name as decoded: answers owned by exactly this name point at the question. */
  questionName: string;
  /** In a stable order; shuffled for each message when `shuffle`. */
  answers: readonly Answer[];
  shuffle: boolean;
  authorities: readonly Answer[];
  /** Candidates: only those an answer given names go out (SRV targets, NS names, the answers' owner). */
  additionals: readonly Answer[];
  /** The OPT record to send back, when the asker used EDNS. */
  edns: Answer | undefined;
}

export interface Fitting {
  transport: Transport;
  /** The asker's EDNS buffer size; undefined without EDNS (then 512 bytes and the answer limit). */
  udpSize: number | undefined;
  /** `udp_answer_limit` (capped at 8, as Consul): answers on UDP without EDNS. */
  udpAnswerLimit: number;
  /** `enable_truncate`: TC when the answer limit cut answers. */
  enableTruncate: boolean;
  /** `a_record_limit`: at most this many A/AAAA answers on any transport (0: no limit). */
  aRecordLimit: number;
  /** Owner names as compression pointers; false (`disable_compression`) writes every name whole. */
  compress: boolean;
  random: () => number;
}

const HEADER_SIZE = 12;
const DEFAULT_UDP_SIZE = 512;
/** Larger EDNS buffers are honoured up to this (Consul's bound: 65535 less IP and UDP headers). */
const MAX_UDP_SIZE = 65_475;
const MAX_UDP_ANSWER_LIMIT = 8;
const MAX_TCP_SIZE = 65_535;
/** A compression pointer to the question's name, which always starts right after the header. */
const QUESTION_POINTER = 0xc000 | HEADER_SIZE;

/**
 * The records of one resolution, measured and encoded once: a busy name's records are the same objects while
 * the read behind them is unchanged (resolver.ts), so each message only picks, orders and copies bytes.
 */
interface Compiled {
  additionals: readonly Answer[];
  /** The owner shared by every answer (answers to one question), else undefined. */
  owner: string | undefined;
  /** Each answer's bytes after its owner name, and its whole encoding. */
  tails: Buffer[];
  whole: Buffer[];
  isAddress: Uint8Array;
  /** Where the name in an answer's data starts, from the end of its owner name (-1: none). */
  targetAt: Int32Array;
  extraTails: Buffer[];
  extraWhole: Buffer[];
  /** For each additional, the answers that name it (it goes out only with one of them). */
  namedBy: number[][];
  /** For each additional, the answers whose data name is written exactly as its owner (a pointer target). */
  pointTo: number[][];
  /** For each additional, whether its owner is exactly the answers' owner. */
  ownedAsAnswers: Uint8Array;
  /** Names this compilation's pools (writeResponse). */
  id: number;
}

const compiled = new WeakMap<readonly Answer[], Compiled>();
let nextId = 0;

function compile(answers: readonly Answer[], additionals: readonly Answer[]): Compiled {
  const cached = compiled.get(answers);
  if (cached && cached.additionals === additionals) return cached;
  const owner =
    answers.length > 0 && answers.every((a) => a.name === answers[0]?.name) ? answers[0]?.name : undefined;
  const tails: Buffer[] = [];
  const whole: Buffer[] = [];
  const isAddress = new Uint8Array(answers.length);
  const targetAt = new Int32Array(answers.length).fill(-1);
  const targets: (string | undefined)[] = [];
  const references: string[] = [];
  answers.forEach((a, i) => {
    const bytes = recordBytes(a);
    whole.push(bytes);
    tails.push(bytes.subarray(nameLength(a.name)));
    isAddress[i] = a.type === "A" || a.type === "AAAA" ? 1 : 0;
    // Type, class, TTL and length (10 bytes), then the data: SRV's name follows priority, weight and port.
    if (a.type === "SRV") {
      targetAt[i] = 16;
      targets.push(exact(a.data.target));
      references.push(bare(a.data.target));
    } else if (a.type === "NS" || a.type === "CNAME" || a.type === "PTR") {
      targetAt[i] = 10;
      targets.push(exact(a.data));
      references.push(a.type === "NS" ? bare(a.data) : bare(a.name));
    } else {
      targets.push(undefined);
      references.push(bare(a.name));
    }
  });
  const extraTails: Buffer[] = [];
  const extraWhole: Buffer[] = [];
  const namedBy: number[][] = [];
  const pointTo: number[][] = [];
  const ownedAsAnswers = new Uint8Array(additionals.length);
  additionals.forEach((x, j) => {
    const bytes = recordBytes(x);
    extraWhole.push(bytes);
    extraTails.push(bytes.subarray(nameLength(x.name)));
    const key = bare(x.name);
    const name = exact(x.name);
    namedBy.push(references.flatMap((r, i) => (r === key ? [i] : [])));
    pointTo.push(targets.flatMap((t, i) => (t === name ? [i] : [])));
    ownedAsAnswers[j] = owner !== undefined && x.name === owner ? 1 : 0;
  });
  const c: Compiled = {
    additionals,
    owner,
    tails,
    whole,
    isAddress,
    targetAt,
    extraTails,
    extraWhole,
    namedBy,
    pointTo,
    ownedAsAnswers,
    id: nextId++,
  };
  compiled.set(answers, c);
  return c;
}

const exact = (name: string) => (name.endsWith(".") ? name.slice(0, -1) : name);

/**
 * Writes the response: answers in a uniformly random order for each message (as Consul shuffles each answer),
 * `a_record_limit`, then fitted to UDP — the answer limit without EDNS, then as many answers as fit the asker's
 * buffer with TC when some had to go (or when the answer limit cut them, with enable_truncate), so that
 * resolvers retry over TCP and get them all; additionals that do not fit are left out without TC (RFC 2181 9).
 * Owner names repeat the question's (or an SRV target's) as compression pointers, as Consul's answers do; data
 * names are written whole (RFC 3597 4 forbids compressing SRV's).
 *
 * A busy name is answered over UDP from a pool of messages already written, each its own Fisher-Yates
 * shuffle: every message picks a slot uniformly at random (so its order is a uniformly random permutation,
 * the chosen slot being independent of its content) and gets only its ID and flags written; one message in
 * REFRESH_ONE_IN rewrites the slot it picked with a fresh shuffle, so the orders in circulation keep changing.
 */
export function writeResponse(p: ResponseParts, f: Fitting): Buffer {
  const c = compile(p.answers, p.additionals);
  if (f.transport !== "udp" || !p.shuffle || p.answers.length < 2 || p.authorities.length > 0)
    return build(p, f, c);
  const key = `${c.id}|${f.udpSize}|${f.udpAnswerLimit}|${f.enableTruncate}|${f.aRecordLimit}|${f.compress}`;
  let pool = pools.get(key);
  // One pool per records and way of asking; the question (the letter case of its name, its class) is in the
  // messages, so another question replaces the pool.
  if (!pool?.question.equals(p.question)) {
    // Bounded for the whole process (at most MAX_POOLS × POOL_SIZE × MAX_POOLED_SIZE bytes): askers varying
    // names' letter case or buffer sizes only make pools start over.
    if (pools.size >= MAX_POOLS) pools.clear();
    pool = { question: Buffer.from(p.question), messages: [] };
    pools.set(key, pool);
  }
  const slot = Math.floor(f.random() * POOL_SIZE);
  let written = pool.messages[slot];
  if (written === undefined || f.random() * REFRESH_ONE_IN < 1) {
    written = build({ ...p, id: 0, flags: 0 }, f, c);
    if (written.length > MAX_POOLED_SIZE) return build(p, f, c);
    pool.messages[slot] = written;
  }
  const out = Buffer.allocUnsafe(written.length);
  written.copy(out, 0);
  out.writeUInt16BE(p.id, 0);
  // The written message holds QR and TC; the rest (RD, AA, RA, rcode) is this question's.
  out.writeUInt16BE(written.readUInt16BE(2) | (p.flags & 0x7fff & ~packet.TRUNCATED_RESPONSE), 2);
  return out;
}

const POOL_SIZE = 32;
const REFRESH_ONE_IN = 8;
const MAX_POOLS = 128;
const MAX_POOLED_SIZE = 8_192;
const pools = new Map<string, { question: Buffer; messages: Buffer[] }>();

function build(p: ResponseParts, f: Fitting, c: Compiled): Buffer {
  const n = p.answers.length;
  const order = scratchOrder(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (p.shuffle) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(f.random() * (i + 1));
      const t = order[i] as number;
      order[i] = order[j] as number;
      order[j] = t;
    }
  }
  let count = n;
  if (f.aRecordLimit > 0) {
    let addresses = 0;
    count = 0;
    for (let k = 0; k < n; k++) {
      const i = order[k] as number;
      if (c.isAddress[i] && ++addresses > f.aRecordLimit) continue;
      order[count++] = i;
    }
  }
  let truncated = false;
  const udp = f.transport === "udp";
  if (udp && f.udpSize === undefined) {
    const limit = Math.min(Math.max(f.udpAnswerLimit, 1), MAX_UDP_ANSWER_LIMIT);
    if (count > limit) {
      count = limit;
      truncated = f.enableTruncate;
    }
  }
  // A TCP message is framed by a two-byte length: a bigger answer is cut like a UDP one, with TC.
  const maxSize = !udp
    ? MAX_TCP_SIZE
    : f.udpSize === undefined
      ? DEFAULT_UDP_SIZE
      : Math.min(Math.max(f.udpSize, DEFAULT_UDP_SIZE), MAX_UDP_SIZE);
  const pointed = f.compress && c.owner !== undefined && c.owner === p.questionName;
  let size = HEADER_SIZE + p.question.length;
  for (const r of p.authorities) size += recordBytes(r).length;
  if (p.edns) size += recordBytes(p.edns).length;
  // Which answers go (kept[i]), in order, and where each one's data name lands (for additionals to point at).
  const kept = scratchKept(n).fill(0, 0, n);
  const targetOffsets = scratchTargets(n);
  let answerAt = HEADER_SIZE + p.question.length;
  let given = 0;
  for (; given < count; given++) {
    const i = order[given] as number;
    const tail = (c.tails[i] as Buffer).length;
    const ownerSize = pointed ? 2 : (c.whole[i] as Buffer).length - tail;
    if (size + ownerSize + tail > maxSize) break;
    size += ownerSize + tail;
    kept[i] = 1;
    const t = c.targetAt[i] as number;
    targetOffsets[i] = t >= 0 ? answerAt + ownerSize + t : -1;
    answerAt += ownerSize + tail;
  }
  if (given < count) truncated = true;
  const extras: number[] = [];
  const pointers: number[] = [];
  for (let j = 0; j < p.additionals.length; j++) {
    if (!(c.namedBy[j] as number[]).some((i) => kept[i])) continue;
    const pointer = f.compress ? pointerFor(c, j, kept, pointed, targetOffsets) : undefined;
    const s =
      pointer === undefined ? (c.extraWhole[j] as Buffer).length : 2 + (c.extraTails[j] as Buffer).length;
    if (size + s > maxSize) break;
    size += s;
    extras.push(j);
    pointers.push(pointer ?? -1);
  }

  const out = Buffer.allocUnsafe(size);
  out.writeUInt16BE(p.id, 0);
  out.writeUInt16BE(
    (p.flags & 0x7fff & ~packet.TRUNCATED_RESPONSE) | 0x8000 | (truncated ? packet.TRUNCATED_RESPONSE : 0),
    2,
  );
  out.writeUInt16BE(1, 4);
  out.writeUInt16BE(given, 6);
  out.writeUInt16BE(p.authorities.length, 8);
  out.writeUInt16BE(extras.length + (p.edns ? 1 : 0), 10);
  let at = HEADER_SIZE + copy(p.question, out, HEADER_SIZE);
  for (let k = 0; k < given; k++) {
    const i = order[k] as number;
    if (pointed) {
      out[at] = QUESTION_POINTER >> 8;
      out[at + 1] = QUESTION_POINTER & 0xff;
      at += 2 + copy(c.tails[i] as Buffer, out, at + 2);
    } else at += copy(c.whole[i] as Buffer, out, at);
  }
  for (const r of p.authorities) at += copy(recordBytes(r), out, at);
  extras.forEach((j, k) => {
    const pointer = pointers[k] as number;
    if (pointer < 0) {
      at += copy(c.extraWhole[j] as Buffer, out, at);
      return;
    }
    out[at] = 0xc0 | (pointer >> 8);
    out[at + 1] = pointer & 0xff;
    at += 2 + copy(c.extraTails[j] as Buffer, out, at + 2);
  });
  if (p.edns) at += copy(recordBytes(p.edns), out, at);
  return out;
}

/**
 * Where additional j's owner can point: the question (its owner is the answers'), or the data name of a given
 * answer that writes it exactly so (pointers reach 16 KiB into a message); undefined: it is written whole.
 */
function pointerFor(
  c: Compiled,
  j: number,
  kept: Uint8Array,
  pointed: boolean,
  targetOffsets: Int32Array,
): number | undefined {
  if (c.ownedAsAnswers[j] && pointed) return HEADER_SIZE;
  for (const i of c.pointTo[j] as number[]) {
    if (kept[i] && (targetOffsets[i] as number) <= 0x3fff) return targetOffsets[i];
  }
  return undefined;
}

// Small records are copied byte by byte: a native copy per 16-byte record costs more than the bytes.
function copy(from: Buffer, to: Buffer, at: number): number {
  const n = from.length;
  if (n > 64) to.set(from, at);
  else for (let k = 0; k < n; k++) to[at + k] = from[k] as number;
  return n;
}

// Scratch arrays reused across messages (writing one is synchronous).
let orderArray = new Int32Array(256);
let keptArray = new Uint8Array(256);
let targetArray = new Int32Array(256);
function scratchOrder(n: number): Int32Array {
  if (orderArray.length < n) orderArray = new Int32Array(n * 2);
  return orderArray;
}
function scratchKept(n: number): Uint8Array {
  if (keptArray.length < n) keptArray = new Uint8Array(n * 2);
  return keptArray;
}
function scratchTargets(n: number): Int32Array {
  if (targetArray.length < n) targetArray = new Int32Array(n * 2);
  return targetArray;
}
