/**
 * The TTL of a service from `dns_config.service_ttl`: its exact name, else the longest `prefix*` entry that
 * matches (`*` alone matches every service), else 0, as Consul's lookup does.
 */
export function serviceTtlMs(ttls: Readonly<Record<string, number>>, service: string): number {
  const exact = ttls[service];
  if (exact !== undefined) return exact;
  let best: { length: number; ms: number } | undefined;
  for (const [key, ms] of Object.entries(ttls)) {
    if (!key.endsWith("*")) continue;
    const prefix = key.slice(0, -1);
    if (service.startsWith(prefix) && (!best || prefix.length > best.length))
      best = { length: prefix.length, ms };
  }
  return best?.ms ?? 0;
}

export const seconds = (ms: number): number => Math.max(0, Math.floor(ms / 1000));
