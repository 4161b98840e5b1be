import { isIP } from "node:net";
import type { Answer, RecordType } from "dns-packet";
import { bare, domainOf, ipToHex, isReverse, type Lookup, parseName, reverseToIp, sameIp } from "./names.js";
import { seconds, serviceTtlMs } from "./ttl.js";
import type { Instance, NodeRecord, StateView } from "./view.js";

export interface ResolverConfig {
  /** `consul.`: always with the final dot. */
  domain: string;
  altDomain: string | undefined;
  datacenter: string;
  nodeTtlMs: number;
  serviceTtlMs: Readonly<Record<string, number>>;
  onlyPassing: boolean;
  /** `dns_config.a_record_limit`: at most this many A/AAAA answers (0: no limit). */
  aRecordLimit: number;
}

export interface Question {
  name: string;
  type: string;
  class: string;
}

export type Rcode = "NOERROR" | "NXDOMAIN" | "SERVFAIL" | "REFUSED" | "NOTIMP" | "FORMERR";

export interface Resolution {
  rcode: Rcode;
  answers: Answer[];
  authorities: Answer[];
  additionals: Answer[];
  /** A name the agent is authoritative for (its domain or a reverse name it knows). */
  authoritative: boolean;
  /** Outside the domain: the listener forwards it to the recursors, if any. */
  recurse: boolean;
  /** The lookup it was, for metrics: service, node, query, ... */
  kind: string;
}

export interface ResolveContext {
  view: StateView;
  now: () => number;
  random: () => number;
  /** The asker's IP address (EDNS client subnet first), for prepared queries near `_ip`. */
  source?: string;
}

/**
 * Answers one question from the state view: pure name-to-records logic, no sockets. Only instances whose
 * checks all pass (or warn, unless only_passing) are given, so maintenance (a critical check) hides them.
 */
export async function resolve(q: Question, config: ResolverConfig, ctx: ResolveContext): Promise<Resolution> {
  const domains = [config.domain, ...(config.altDomain ? [config.altDomain] : [])];
  const domain = domainOf(q.name, domains);
  if (domain === undefined) {
    if (isReverse(q.name)) return reverse(q, config, ctx);
    return { ...empty("outside"), recurse: true, authoritative: false };
  }
  const parsed = parseName(q.name, domain);
  const kind = parsed.lookup.kind;
  // Another datacenter's names are answered from there (through the API's `?dc=` forwarding), as Consul's
  // DNS asks that datacenter's servers; one the view does not know has no names (NXDOMAIN).
  const remote =
    parsed.datacenter !== undefined && parsed.datacenter !== config.datacenter.toLowerCase()
      ? parsed.datacenter
      : undefined;
  // Datacenter names are plain labels (Consul's rule): anything else names none, and is not sent on as `?dc=`.
  if (remote !== undefined && !DATACENTER.test(remote)) return nxdomain(kind, domain, ctx);
  const records = await lookup(q, parsed.lookup, { config, ctx, domain, remote });
  if (records === undefined) return nxdomain(kind, domain, ctx);
  // In a stable order, every candidate additional: the message writer shuffles each answer afresh, applies
  // a_record_limit and keeps the additionals the given answers name (message.ts).
  return {
    ...empty(kind),
    answers: records.answers,
    additionals: records.additionals,
    authorities: records.answers.length === 0 ? [soaRecord(domain, ctx.now())] : [],
  };
}

const DATACENTER = /^[a-z0-9_-]+$/;

function nxdomain(kind: string, domain: string, ctx: ResolveContext): Resolution {
  return { ...empty(kind), rcode: "NXDOMAIN", authorities: [soaRecord(domain, ctx.now())] };
}

function empty(kind: string): Resolution {
  return {
    rcode: "NOERROR",
    answers: [],
    authorities: [],
    additionals: [],
    authoritative: true,
    recurse: false,
    kind,
  };
}

interface Scope {
  config: ResolverConfig;
  ctx: ResolveContext;
  domain: string;
  /** The other datacenter the question names, if any. */
  remote: string | undefined;
}

interface Records {
  answers: Answer[];
  additionals: Answer[];
}

/** Records for the name, or undefined for NXDOMAIN. */
async function lookup(q: Question, l: Lookup, s: Scope): Promise<Records | undefined> {
  switch (l.kind) {
    case "apex":
      return apex(q, s);
    case "service": {
      const all = await s.ctx.view.instances(l.service, l.tag, s.remote);
      // No instance at all: the name does not exist; instances none healthy: it does, with no records.
      if (all.length === 0) return undefined;
      const ttl = seconds(serviceTtlMs(s.config.serviceTtlMs, l.service));
      const key = `${q.name}|${q.type}|${ttl}|${s.domain}|${s.config.onlyPassing}`;
      return (
        recall(all, key) ??
        remember(
          all,
          key,
          instanceRecords(
            q,
            all.filter((i) => healthy(i.checks, s.config.onlyPassing)),
            ttl,
            s,
          ),
        )
      );
    }
    case "query": {
      const answer = await s.ctx.view.query(l.query, s.ctx.source, s.remote);
      if (!answer) return undefined;
      const ttlMs = answer.ttlMs ?? serviceTtlMs(s.config.serviceTtlMs, answer.service);
      return instanceRecords(q, answer.instances, seconds(ttlMs), s);
    }
    case "node":
    case "server":
      return nodeLookup(q, l.node, l.kind === "server", s);
    case "addr": {
      const family = isIP(l.ip);
      const type = family === 4 ? "A" : "AAAA";
      if (q.type !== type && q.type !== "ANY") return { answers: [], additionals: [] };
      return { answers: [{ name: q.name, type, ttl: 0, data: l.ip } as Answer], additionals: [] };
    }
    case "invalid":
      return undefined;
  }
}

async function apex(q: Question, s: Scope): Promise<Records> {
  const answers: Answer[] = [];
  const additionals: Answer[] = [];
  if (q.type === "SOA" || q.type === "ANY")
    answers.push({ ...soaRecord(s.domain, s.ctx.now()), name: q.name });
  if (q.type === "NS" || q.type === "ANY") {
    const ns = await nameservers(s);
    answers.push(...ns.answers.map((a) => ({ ...a, name: q.name })));
    additionals.push(...ns.additionals);
  }
  return { answers, additionals };
}

/** Up to three healthy servers (the `consul` service), named `<node>.server.<dc>.<domain>`, as Consul. */
async function nameservers(s: Scope): Promise<Records> {
  const servers = (await s.ctx.view.instances("consul", undefined)).filter((i) => healthy(i.checks, false));
  const ttl = seconds(s.config.nodeTtlMs);
  const answers: Answer[] = [];
  const additionals: Answer[] = [];
  for (const server of shuffle(servers, s.ctx.random).slice(0, 3)) {
    if (!/^[a-z0-9-]+$/i.test(server.node.name)) continue;
    const fqdn = `${server.node.name.toLowerCase()}.server.${server.node.datacenter}.${bare(s.domain)}`;
    answers.push({ name: bare(s.domain), type: "NS", ttl, data: fqdn });
    additionals.push(...addressRecords(fqdn, server.node.address, "ANY", ttl));
  }
  return { answers, additionals };
}

async function nodeLookup(
  q: Question,
  name: string,
  serverOnly: boolean,
  s: Scope,
): Promise<Records | undefined> {
  const found = await s.ctx.view.node(name, s.remote);
  if (!found) return undefined;
  // Spec: a node in maintenance is absent from DNS.
  if (found.checks.some((c) => c.checkId === "_node_maintenance")) return undefined;
  if (serverOnly) {
    const servers = await s.ctx.view.instances("consul", undefined, s.remote);
    if (!servers.some((i) => i.node.name === found.node.name)) return undefined;
  }
  const ttl = seconds(s.config.nodeTtlMs);
  const answers = addressRecords(q.name, found.node.address, q.type, ttl);
  const meta = metaRecords(q.name, found.node.meta, ttl);
  if (q.type === "TXT" || q.type === "ANY") return { answers: [...answers, ...meta], additionals: [] };
  return { answers, additionals: answers.length > 0 ? meta : [] };
}

function instanceRecords(q: Question, instances: readonly Instance[], ttl: number, s: Scope): Records {
  const answers: Answer[] = [];
  const additionals: Answer[] = [];
  const seen = new Set<string>();
  for (const i of instances) {
    const address = i.serviceAddress || i.node.address;
    if (q.type === "SRV") {
      const target = srvTarget(i, s.domain);
      answers.push({
        name: q.name,
        type: "SRV",
        ttl,
        data: { priority: 1, weight: i.weight, port: i.port, target },
      });
      additionals.push(...addressRecords(target, address, "ANY", ttl));
      if (!i.serviceAddress || i.serviceAddress === i.node.address)
        additionals.push(...metaRecords(target, i.node.meta, ttl));
      continue;
    }
    if (q.type === "TXT") {
      answers.push(...metaRecords(q.name, i.node.meta, ttl));
      continue;
    }
    // Instances on one address give one record, as Consul's.
    if (seen.has(address)) continue;
    seen.add(address);
    answers.push(...addressRecords(q.name, address, q.type, ttl));
  }
  return { answers, additionals: dedupe(additionals) };
}

// Records built from one read of the view, by question: while the view hands out the same (unchanged) read,
// a question costs no record building, and the records keep their encoded form (wire.ts).
const recordsByRead = new WeakMap<object, Map<string, Records>>();
const MAX_QUESTIONS_PER_READ = 64;

function recall(read: object, key: string): Records | undefined {
  return recordsByRead.get(read)?.get(key);
}

function remember(read: object, key: string, records: Records): Records {
  let byQuestion = recordsByRead.get(read);
  if (!byQuestion) {
    byQuestion = new Map();
    recordsByRead.set(read, byQuestion);
  }
  // Bounded: names differing only in letter case are distinct questions (answers echo the asked name).
  if (byQuestion.size >= MAX_QUESTIONS_PER_READ) byQuestion.clear();
  byQuestion.set(key, records);
  return records;
}

/** Consul's SRV targets: the node's name, else the service IP as `<hex>.addr.<dc>`, else its hostname. */
function srvTarget(i: Instance, domain: string): string {
  const dc = i.node.datacenter;
  if (!i.serviceAddress || i.serviceAddress === i.node.address) {
    if (isIP(i.node.address) === 0) return bare(i.node.address);
    return `${i.node.name.toLowerCase()}.node.${dc}.${bare(domain)}`;
  }
  if (isIP(i.serviceAddress) !== 0) return `${ipToHex(i.serviceAddress)}.addr.${dc}.${bare(domain)}`;
  return bare(i.serviceAddress);
}

/** A or AAAA for an IP (as the question's type allows), CNAME for a hostname. */
export function addressRecords(name: string, address: string, type: string, ttl: number): Answer[] {
  const family = isIP(address);
  if (family === 4) return type === "A" || type === "ANY" ? [{ name, type: "A", ttl, data: address }] : [];
  if (family === 6)
    return type === "AAAA" || type === "ANY" ? [{ name, type: "AAAA", ttl, data: address }] : [];
  if (address === "") return [];
  return ["A", "AAAA", "CNAME", "ANY"].includes(type)
    ? [{ name, type: "CNAME", ttl, data: bare(address) }]
    : [];
}

/** Node meta as TXT `key=value` strings; Consul writes `rfc1035-` keys as the bare value. */
function metaRecords(name: string, meta: Readonly<Record<string, string>>, ttl: number): Answer[] {
  return Object.entries(meta).map(([k, v]) => ({
    name,
    type: "TXT",
    ttl,
    data: k.startsWith("rfc1035-") ? v : `${k}=${v}`,
  }));
}

function healthy(checks: readonly { status: string }[], onlyPassing: boolean): boolean {
  return checks.every((c) => c.status === "passing" || (!onlyPassing && c.status === "warning"));
}

/** PTR for a known node's address (then a service's own), as `<node>.node.<dc>.<domain>`. */
async function reverse(q: Question, config: ResolverConfig, ctx: ResolveContext): Promise<Resolution> {
  const ip = reverseToIp(q.name);
  const result = empty("ptr");
  if (ip === undefined) return { ...result, recurse: true, authoritative: false };
  const ttl = seconds(config.nodeTtlMs);
  const nodes = (await ctx.view.nodes()).filter((n) => sameIp(n.address, ip));
  if (nodes.length === 0) return { ...result, recurse: true, authoritative: false };
  const answers: Answer[] = [];
  if (q.type === "PTR" || q.type === "ANY") {
    for (const n of nodes) {
      answers.push({
        name: q.name,
        type: "PTR",
        ttl,
        data: `${n.name.toLowerCase()}.node.${n.datacenter}.${bare(config.domain)}`,
      });
    }
  }
  return { ...result, answers };
}

export function soaRecord(domain: string, now: number): Answer {
  const d = bare(domain);
  return {
    name: d,
    type: "SOA",
    ttl: 0,
    data: {
      mname: `ns.${d}`,
      rname: `hostmaster.${d}`,
      serial: Math.floor(now / 1000) >>> 0,
      refresh: 3600,
      retry: 600,
      expire: 86_400,
      minimum: 0,
    },
  };
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function dedupe(records: Answer[]): Answer[] {
  const seen = new Set<string>();
  return records.filter((r) => {
    const key = `${bare(r.name)}|${r.type}|${JSON.stringify("data" in r ? r.data : "")}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type { NodeRecord, RecordType };
