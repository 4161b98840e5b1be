import { isIP } from "node:net";

/** What a question's name asks for, once the domain and datacenter are taken off. */
export type Lookup =
  | { kind: "apex" }
  | { kind: "service"; service: string; tag: string | undefined }
  | { kind: "node"; node: string }
  | { kind: "server"; node: string }
  | { kind: "query"; query: string }
  | { kind: "addr"; ip: string }
  | { kind: "invalid" };

export interface ParsedName {
  /** The domain (`consul.` or the alt domain) the name was asked under, as configured. */
  domain: string;
  /** The datacenter named in the question, else undefined (the agent's own). */
  datacenter: string | undefined;
  lookup: Lookup;
}

const TYPES = new Set(["service", "node", "query", "addr", "server"]);

/** `a.b.c.` and `a.b.c` alike, lower-cased, without the final dot. */
export function bare(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** Which of the domains (each `x.y.`) holds the name, if any. */
export function domainOf(name: string, domains: readonly string[]): string | undefined {
  const n = bare(name);
  for (const domain of domains) {
    const d = bare(domain);
    if (n === d || n.endsWith(`.${d}`)) return domain;
  }
  return undefined;
}

/**
 * Consul's name forms: `[tag.]<service>.service[.<dc>]`, `_<service>._<tag|tcp>.service[.<dc>]`,
 * `<node>.node[.<dc>]`, `<query>.query[.<dc>]`, `<hex ip>.addr[.<dc>]`, under the domain. As Consul, the
 * type label is looked for from the right, so what follows it is the datacenter.
 */
export function parseName(name: string, domain: string): ParsedName {
  const n = bare(name);
  const d = bare(domain);
  const rest = n === d ? "" : n.slice(0, -(d.length + 1));
  if (rest === "") return { domain, datacenter: undefined, lookup: { kind: "apex" } };
  const labels = rest.split(".");
  if (labels.some((l) => l === "" || l.length > 63)) return invalid(domain);
  let at = -1;
  for (let i = labels.length - 1; i >= 0; i--) {
    if (TYPES.has(labels[i] ?? "")) {
      at = i;
      break;
    }
  }
  if (at <= 0) return invalid(domain);
  const after = labels.slice(at + 1);
  // `<dc>` or Consul's newer `<dc>.dc`.
  const dcLabels = after.length === 2 && after[1] === "dc" ? after.slice(0, 1) : after;
  if (dcLabels.length > 1) return invalid(domain);
  const datacenter = dcLabels[0];
  const parts = labels.slice(0, at);
  return { domain, datacenter, lookup: lookupOf(labels[at] ?? "", parts) };
}

function lookupOf(type: string, parts: string[]): Lookup {
  switch (type) {
    case "service": {
      if (parts.length === 1) return { kind: "service", service: parts[0] ?? "", tag: undefined };
      if (parts.length !== 2) return { kind: "invalid" };
      const [first = "", second = ""] = parts;
      if (first.startsWith("_") && second.startsWith("_")) {
        const tag = second.slice(1);
        return { kind: "service", service: first.slice(1), tag: tag === "tcp" ? undefined : tag };
      }
      return { kind: "service", service: second, tag: first };
    }
    case "node":
      return { kind: "node", node: parts.join(".") };
    case "server":
      return { kind: "server", node: parts.join(".") };
    case "query":
      return { kind: "query", query: parts.join(".") };
    case "addr": {
      const ip = parts.length === 1 ? hexToIp(parts[0] ?? "") : undefined;
      return ip ? { kind: "addr", ip } : { kind: "invalid" };
    }
    default:
      return { kind: "invalid" };
  }
}

const invalid = (domain: string): ParsedName => ({
  domain,
  datacenter: undefined,
  lookup: { kind: "invalid" },
});

/** `7f000001` is 127.0.0.1; 32 hex digits are an IPv6 address. */
export function hexToIp(hex: string): string | undefined {
  if (!/^[0-9a-f]+$/.test(hex)) return undefined;
  if (hex.length === 8) {
    return [0, 2, 4, 6].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(".");
  }
  if (hex.length === 32) {
    const groups = [];
    for (let i = 0; i < 32; i += 4) groups.push(hex.slice(i, i + 4));
    return groups.join(":");
  }
  return undefined;
}

/** The `addr` label of an IP address (the SRV target Consul gives a service with its own IP). */
export function ipToHex(ip: string): string {
  if (isIP(ip) === 4) {
    return ip
      .split(".")
      .map((o) => Number(o).toString(16).padStart(2, "0"))
      .join("");
  }
  return expandIpv6(ip).replace(/:/g, "");
}

/** `::1` as 0000:0000:...:0001. */
export function expandIpv6(ip: string): string {
  const [head = "", tail] = ip.split("::");
  const h = head === "" ? [] : head.split(":");
  const t = tail === undefined || tail === "" ? [] : tail.split(":");
  const fill = tail === undefined ? [] : Array(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((g) => g.padStart(4, "0")).join(":");
}

/** The address a reverse name (`4.3.2.1.in-addr.arpa`, nibbles `.ip6.arpa`) stands for, if whole. */
export function reverseToIp(name: string): string | undefined {
  const n = bare(name);
  if (n.endsWith(".in-addr.arpa")) {
    const octets = n.slice(0, -".in-addr.arpa".length).split(".");
    if (octets.length !== 4 || !octets.every((o) => /^[0-9]{1,3}$/.test(o) && Number(o) <= 255))
      return undefined;
    return octets.reverse().map(Number).join(".");
  }
  if (n.endsWith(".ip6.arpa")) {
    const nibbles = n.slice(0, -".ip6.arpa".length).split(".");
    if (nibbles.length !== 32 || !nibbles.every((x) => /^[0-9a-f]$/.test(x))) return undefined;
    return hexToIp(nibbles.reverse().join(""));
  }
  return undefined;
}

/** True for names under in-addr.arpa or ip6.arpa. */
export function isReverse(name: string): boolean {
  const n = bare(name);
  return n.endsWith("in-addr.arpa") || n.endsWith("ip6.arpa");
}

/** Two spellings of one IP address compare equal (IPv6 zero runs, letter case). */
export function sameIp(a: string, b: string): boolean {
  if (a === b) return true;
  const fa = isIP(a);
  if (fa !== 6 || isIP(b) !== 6) return false;
  return expandIpv6(a.toLowerCase()) === expandIpv6(b.toLowerCase());
}
