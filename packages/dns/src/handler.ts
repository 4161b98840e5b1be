import type { Answer } from "dns-packet";
import * as packet from "dns-packet";
import { writeResponse } from "./message.js";
import { type ParsedQuery, readQuery } from "./query.js";
import { forward, type Transport } from "./recursor.js";
import {
  type Rcode,
  type Resolution,
  type ResolveContext,
  type ResolverConfig,
  resolve,
  soaRecord,
} from "./resolver.js";
import type { StateView } from "./view.js";

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
  /** Names as compression pointers (default; `dns_config.disable_compression` turns it off). */
  compress?: boolean;
  metrics?: DnsMetrics;
  now?: () => number;
  random?: () => number;
  /** Told about failures that turn into SERVFAIL. */
  onError?: (err: Error) => void;
}

const DEFAULT_UDP_SIZE = 512;
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
  if (o.metrics) {
    o.metrics.incrCounter("cairn.dns.queries", 1, queryLabels(outcome.qtype, outcome.rcode, ex.transport));
    o.metrics.addSample(
      outcome.reverse ? "consul.dns.ptr_query" : "consul.dns.domain_query",
      performance.now() - started,
      nodeLabels(o.nodeName),
    );
  }
  return outcome.bytes;
}

// The same label objects for the same labels: the registry keys a series by its label object (registry.ts).
const labelSets = new Map<string, Readonly<Record<string, string>>>();
const MAX_LABEL_SETS = 1_000;
function queryLabels(type: string, rcode: string, transport: string): Readonly<Record<string, string>> {
  const key = `${type} ${rcode} ${transport}`;
  let labels = labelSets.get(key);
  if (!labels) {
    // Bounded: unknown types are named by number, so a flood of odd questions could grow it.
    if (labelSets.size >= MAX_LABEL_SETS) labelSets.clear();
    labels = { type, rcode, transport };
    labelSets.set(key, labels);
  }
  return labels;
}
const nodeLabelSets = new Map<string, Readonly<Record<string, string>>>();
function nodeLabels(node: string): Readonly<Record<string, string>> {
  let labels = nodeLabelSets.get(node);
  if (!labels) {
    labels = { node };
    nodeLabelSets.set(node, labels);
  }
  return labels;
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
  const parsed = readQuery(query);
  if (!parsed) return bare(id, opcode, rd, "FORMERR");
  if (opcode !== 0) return bare(id, opcode, rd, "NOTIMP");
  if (parsed.questionCount !== 1) return bare(id, opcode, rd, "FORMERR");
  const edns = parsed.udpSize !== undefined;
  // RFC 1035: plain UDP messages are at most 512 bytes; only EDNS allows more.
  if (ex.transport === "udp" && query.length > DEFAULT_UDP_SIZE && !edns)
    return bare(id, opcode, rd, "FORMERR");
  const q = parsed.question;
  const qclass = q.class ?? "IN";
  const asked: Asked = { id, rd, parsed, transport: ex.transport };
  if (qclass !== "IN" && qclass !== "ANY") return finish(asked, o, "REFUSED", false);

  const ctx: ResolveContext = {
    view: o.view,
    now: o.now ?? Date.now,
    random: o.random ?? Math.random,
    source: parsed.clientSubnet ?? ex.source,
  };
  let r: Resolution;
  try {
    r = await resolve({ name: q.name, type: q.type, class: qclass }, o, ctx);
  } catch (err) {
    o.onError?.(err as Error);
    return finish(asked, o, "SERVFAIL", false);
  }
  if (r.recurse) {
    if (o.recursors.length > 0) {
      const relayed = await forward(query, o.recursors, ex.transport, o.recursorTimeoutMs);
      if (relayed) return { bytes: relayed, qtype: q.type, rcode: "RECURSED", reverse: r.kind === "ptr" };
      return finish(asked, o, "SERVFAIL", false);
    }
    // A reverse name of no known node is ours to deny (Consul answers NXDOMAIN with its SOA); other names
    // are not served at all without recursors.
    if (r.kind === "ptr")
      return finish(asked, o, "NXDOMAIN", true, {
        answers: [],
        authorities: [soaRecord(o.domain, ctx.now())],
        additionals: [],
      });
    return finish(asked, o, "REFUSED", false);
  }
  return finish(asked, o, r.rcode, r.authoritative, r);
}

function bare(id: number, opcode: number, rd: number, rcode: Rcode): Outcome {
  return {
    bytes: packet.encode({ type: "response", id, flags: (opcode << 11) | rd | RCODES[rcode] }),
    qtype: "-",
    rcode,
    reverse: false,
  };
}

interface Asked {
  id: number;
  /** The query's RD bit, echoed. */
  rd: number;
  parsed: ParsedQuery;
  transport: Transport;
}

const NO_RECORDS: Pick<Resolution, "answers" | "authorities" | "additionals"> = {
  answers: [],
  authorities: [],
  additionals: [],
};

function finish(
  a: Asked,
  o: HandlerOptions,
  rcode: Rcode,
  authoritative: boolean,
  r: Pick<Resolution, "answers" | "authorities" | "additionals"> = NO_RECORDS,
): Outcome {
  const q = a.parsed.question;
  const udpSize = a.parsed.udpSize;
  const bytes = writeResponse(
    {
      id: a.id,
      flags:
        a.rd |
        (o.recursors.length > 0 ? packet.RECURSION_AVAILABLE : 0) |
        (authoritative ? packet.AUTHORITATIVE_ANSWER : 0) |
        RCODES[rcode],
      question: a.parsed.questionBytes,
      questionName: q.name,
      answers: r.answers,
      shuffle: true,
      authorities: r.authorities,
      additionals: r.additionals,
      edns:
        udpSize === undefined ? undefined : ednsRecord(Math.min(Math.max(udpSize, DEFAULT_UDP_SIZE), 4096)),
    },
    {
      transport: a.transport,
      udpSize,
      udpAnswerLimit: o.udpAnswerLimit,
      enableTruncate: o.enableTruncate,
      aRecordLimit: o.aRecordLimit,
      compress: o.compress ?? true,
      random: o.random ?? Math.random,
    },
  );
  return { bytes, qtype: q.type, rcode, reverse: ARPA.test(q.name) };
}

const ARPA = /\.arpa\.?$/i;

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
