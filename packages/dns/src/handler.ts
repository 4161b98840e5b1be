import type { Answer, DecodedPacket, OptAnswer, Packet } from "dns-packet";
import * as packet from "dns-packet";
import { forward, type Transport } from "./recursor.js";
import {
  keepReferenced,
  type Rcode,
  type ResolveContext,
  type ResolverConfig,
  resolve,
  soaRecord,
} from "./resolver.js";
import type { StateView } from "./view.js";
import { encodeResponse, recordBytes } from "./wire.js";

export interface DnsMetrics {
  incrCounter(name: string, value?: number, labels?: Readonly<Record<string, string>>): void;
  addSample(name: string, value: number, labels?: Readonly<Record<string, string>>): void;
}

export interface HandlerOptions extends ResolverConfig {
  view: StateView;
  nodeName: string;
  recursors: readonly string[];
  recursorTimeoutMs: number;
  /** `dns_config.udp_answer_limit`: A/AAAA answers on UDP without EDNS (Consul caps it at 8). */
  udpAnswerLimit: number;
  /** `dns_config.enable_truncate`: set TC when the answer limit cut answers. */
  enableTruncate: boolean;
  metrics?: DnsMetrics;
  now?: () => number;
  random?: () => number;
  /** Told about failures that turn into SERVFAIL. */
  onError?: (err: Error) => void;
}

const DEFAULT_UDP_SIZE = 512;
/** Larger EDNS buffers are honoured up to this (Consul's bound: 65535 less IP and UDP headers). */
const MAX_UDP_SIZE = 65_475;
const MAX_UDP_ANSWER_LIMIT = 8;
const RCODES: Record<Rcode, number> = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
};

export interface Exchange {
  transport: Transport;
  /** The asker's IP. */
  source: string;
}

/**
 * One DNS message in, one out (or none, for what cannot be answered: a runt or a response). Decoding errors
 * are FORMERR, never thrown; everything inside the domain is the resolver's, the rest the recursors'.
 */
export async function handleMessage(
  query: Buffer,
  ex: Exchange,
  o: HandlerOptions,
): Promise<Buffer | undefined> {
  const started = performance.now();
  const outcome = await answer(query, ex, o);
  if (!outcome) return undefined;
  o.metrics?.incrCounter("cairn.dns.queries", 1, {
    type: outcome.qtype,
    rcode: outcome.rcode,
    transport: ex.transport,
  });
  o.metrics?.addSample(
    outcome.reverse ? "consul.dns.ptr_query" : "consul.dns.domain_query",
    performance.now() - started,
    {
      node: o.nodeName,
    },
  );
  return outcome.bytes;
}

interface Outcome {
  bytes: Buffer;
  qtype: string;
  rcode: string;
  reverse: boolean;
}

async function answer(query: Buffer, ex: Exchange, o: HandlerOptions): Promise<Outcome | undefined> {
  if (query.length < 12) return undefined;
  const id = query.readUInt16BE(0);
  const flags = query.readUInt16BE(2);
  // Never answer a response: two servers could bounce a message between them for ever.
  if (flags & 0x8000) return undefined;
  const rd = flags & packet.RECURSION_DESIRED;
  const opcode = (flags >> 11) & 0xf;
  const bare = (rcode: Rcode): Outcome => ({
    bytes: packet.encode({ type: "response", id, flags: (opcode << 11) | rd | RCODES[rcode] }),
    qtype: "-",
    rcode,
    reverse: false,
  });
  let decoded: DecodedPacket;
  try {
    decoded = packet.decode(query) as DecodedPacket;
  } catch {
    return bare("FORMERR");
  }
  if (opcode !== 0) return bare("NOTIMP");
  const questions = decoded.questions ?? [];
  const opt = (decoded.additionals ?? []).find((a): a is OptAnswer => a.type === "OPT");
  if (questions.length !== 1) return bare("FORMERR");
  // RFC 1035: plain UDP messages are at most 512 bytes; only EDNS allows more.
  if (ex.transport === "udp" && query.length > DEFAULT_UDP_SIZE && !opt) return bare("FORMERR");
  const q = questions[0] as NonNullable<Packet["questions"]>[number];
  const qclass = q.class ?? "IN";
  const reply = (rcode: Rcode, body: Partial<Packet>, authoritative: boolean): Packet => ({
    type: "response",
    id,
    flags:
      rd |
      (o.recursors.length > 0 ? packet.RECURSION_AVAILABLE : 0) |
      (authoritative ? packet.AUTHORITATIVE_ANSWER : 0) |
      RCODES[rcode],
    questions: [q],
    ...body,
  });
  const finish = (p: Packet, rcode: string): Outcome => ({
    bytes: encodeFor(p, ex.transport, opt, o),
    qtype: q.type,
    rcode,
    reverse: /\.arpa\.?$/i.test(q.name),
  });
  if (qclass !== "IN" && qclass !== "ANY") return finish(reply("REFUSED", {}, false), "REFUSED");

  const ctx: ResolveContext = {
    view: o.view,
    now: o.now ?? Date.now,
    random: o.random ?? Math.random,
    source: clientSubnet(opt) ?? ex.source,
  };
  let r: Awaited<ReturnType<typeof resolve>>;
  try {
    r = await resolve({ name: q.name, type: q.type, class: qclass }, o, ctx);
  } catch (err) {
    o.onError?.(err as Error);
    return finish(reply("SERVFAIL", {}, false), "SERVFAIL");
  }
  if (r.recurse) {
    if (o.recursors.length > 0) {
      const relayed = await forward(query, o.recursors, ex.transport, o.recursorTimeoutMs);
      if (relayed) return { bytes: relayed, qtype: q.type, rcode: "RECURSED", reverse: r.kind === "ptr" };
      return finish(reply("SERVFAIL", {}, false), "SERVFAIL");
    }
    // A reverse name of no known node is ours to deny (Consul answers NXDOMAIN with its SOA); other names
    // are not served at all without recursors.
    if (r.kind === "ptr")
      return finish(reply("NXDOMAIN", { authorities: [soaRecord(o.domain, ctx.now())] }, true), "NXDOMAIN");
    return finish(reply("REFUSED", {}, false), "REFUSED");
  }
  const p = reply(
    r.rcode,
    { answers: r.answers, authorities: r.authorities, additionals: r.additionals },
    r.authoritative,
  );
  return finish(p, r.rcode);
}

// One OPT record per buffer size, so that its encoding is kept like any other record's (wire.ts).
const ednsRecords = new Map<number, Answer>();
function ednsRecord(udpPayloadSize: number): Answer {
  let r = ednsRecords.get(udpPayloadSize);
  if (!r) {
    r = { type: "OPT", name: ".", udpPayloadSize, flags: 0, options: [] } as unknown as Answer;
    ednsRecords.set(udpPayloadSize, r);
  }
  return r;
}

function clientSubnet(opt: OptAnswer | undefined): string | undefined {
  const option = opt?.options?.find((x) => x.code === 8) as { ip?: string } | undefined;
  return option?.ip || undefined;
}

/**
 * Encodes the reply, fitted to UDP: Consul's answer limit (without EDNS), then as many answers as fit the
 * asker's buffer (512 bytes, or its EDNS size); TC is set when answers had to go for size, or for the answer
 * limit with enable_truncate, so that resolvers retry over TCP and get them all.
 */
function encodeFor(p: Packet, transport: Transport, opt: OptAnswer | undefined, o: HandlerOptions): Buffer {
  const additionals = [...(p.additionals ?? [])];
  const edns = opt ? ednsRecord(Math.min(Math.max(opt.udpPayloadSize, DEFAULT_UDP_SIZE), 4096)) : undefined;
  const build = (answers: Answer[], extra: Answer[], truncated: boolean): Packet => ({
    ...p,
    flags: (p.flags ?? 0) | (truncated ? packet.TRUNCATED_RESPONSE : 0),
    answers,
    additionals: edns ? [...extra, edns] : extra,
  });
  if (transport === "tcp") return encodeResponse(build(p.answers ?? [], additionals, false));
  const maxSize = opt
    ? Math.min(Math.max(opt.udpPayloadSize, DEFAULT_UDP_SIZE), MAX_UDP_SIZE)
    : DEFAULT_UDP_SIZE;
  let answers = p.answers ?? [];
  let truncated = false;
  const limit = Math.min(Math.max(o.udpAnswerLimit, 1), MAX_UDP_ANSWER_LIMIT);
  if (!opt && answers.length > limit) {
    answers = answers.slice(0, limit);
    truncated = o.enableTruncate;
  }
  // Uncompressed, a message's size is the sum of its parts, so each record is measured once.
  const recordSize = (r: Answer) => recordBytes(r).length;
  // Header, question, authorities and OPT: what every cut of the answers carries.
  let base = packet.encodingLength({ questions: p.questions ?? [] });
  for (const r of p.authorities ?? []) base += recordSize(r);
  if (edns) base += recordSize(edns);
  // The resolver gave only additionals its answers name; only a cut list of answers needs them sifted again.
  const referenced = answers === p.answers ? additionals : keepReferenced(answers, additionals);
  let whole = base;
  for (const r of answers) whole += recordSize(r);
  for (const r of referenced) whole += recordSize(r);
  if (whole <= maxSize) return encodeResponse(build(answers, referenced, truncated));
  let used = base;
  let fit = 0;
  for (const r of answers) {
    const n = recordSize(r);
    if (used + n > maxSize) break;
    used += n;
    fit++;
  }
  if (fit < answers.length) truncated = true;
  answers = answers.slice(0, fit);
  // Additional records are a courtesy: those that do not fit are left out without TC (RFC 2181 9).
  const extra: Answer[] = [];
  for (const r of keepReferenced(answers, additionals)) {
    const n = recordSize(r);
    if (used + n > maxSize) break;
    used += n;
    extra.push(r);
  }
  return encodeResponse(build(answers, extra, truncated));
}
