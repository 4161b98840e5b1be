import { DnsListener, httpView } from "@cairn/dns";
import type { Logger } from "pino";
import type { AgentConfig } from "./config/index.js";
import type { Fetch } from "./metrics/instrument.js";
import type { Metrics } from "./metrics/registry.js";

/** Consul counts a DNS read served staler than this. */
const STALE_COUNTER_THRESHOLD_MS = 5_000;

export interface DnsBackend {
  /** The agent's own HTTP API, unmetered: DNS reads are not HTTP requests. */
  fetch: Fetch;
  metrics: Metrics;
}

/**
 * The DNS interface of a server or client agent: one UDP+TCP listener per `addresses.dns` entry on
 * `ports.dns`, answering from the agent's own /v1 API (so ACLs, stale reads and a client's forwarding to
 * servers are the API's). Undefined when `ports.dns` is -1.
 */
export async function startDns(
  config: AgentConfig,
  backend: DnsBackend,
  log: Logger,
): Promise<{ addresses: string[]; close: () => Promise<void> } | undefined> {
  if (config.ports.dns < 0) return undefined;
  const dnsLog = log.child({ component: "dns" });
  const d = config.dnsConfig;
  const view = httpView({
    fetch: backend.fetch,
    allowStale: d.allowStale,
    maxStaleMs: d.maxStaleMs,
    // With use_cache a read is reused for a bounded time; without it (and with allow_stale) the view keeps the
    // names asked for current with blocking queries, as fresh as a stale read.
    cacheMaxAgeMs: d.useCache ? d.cacheMaxAgeMs || 1_000 : 0,
    onStaleRead: (ms) => {
      if (ms > STALE_COUNTER_THRESHOLD_MS) backend.metrics.incrCounter("consul.dns.stale_queries");
    },
  });
  const handler = {
    view,
    nodeName: config.nodeName,
    domain: config.domain,
    altDomain: config.altDomain === undefined ? undefined : withDot(config.altDomain),
    datacenter: config.datacenter,
    nodeTtlMs: d.nodeTtlMs,
    serviceTtlMs: d.serviceTtlMs,
    onlyPassing: d.onlyPassing,
    aRecordLimit: d.aRecordLimit,
    udpAnswerLimit: d.udpAnswerLimit,
    enableTruncate: d.enableTruncate,
    compress: !d.disableCompression,
    recursors: config.recursors,
    recursorTimeoutMs: d.recursorTimeoutMs,
    metrics: backend.metrics,
    onError: (err: Error) => dnsLog.warn({ err: err.message }, "DNS query failed"),
  };
  const hosts = config.addresses.dns.split(/\s+/).filter((h) => h !== "");
  const listeners: DnsListener[] = [];
  const close = async () => {
    // The view's blocking watches end with the listeners.
    view.close();
    await Promise.all(listeners.map((l) => l.close()));
  };
  try {
    for (const host of hosts) {
      listeners.push(await DnsListener.start({ host, port: config.ports.dns, handler }));
    }
  } catch (err) {
    await close();
    // Unlike Consul, the agent runs on without DNS: the HTTP API (and the cluster) matter more than DNS.
    dnsLog.error(
      { err: (err as Error).message, port: config.ports.dns },
      "cannot serve DNS; running without it",
    );
    return undefined;
  }
  const addresses = hosts.map((h, i) => `${h.includes(":") ? `[${h}]` : h}:${listeners[i]?.port}`);
  dnsLog.info({ addresses, domain: config.domain }, "DNS interface listening (UDP and TCP)");
  return { addresses, close };
}

const withDot = (domain: string) => (domain.endsWith(".") ? domain : `${domain}.`);
