import { type Coordinate, coordinateDistance } from "./coordinate.js";

/** A server in the WAN pool, as datacenter order needs it. */
export interface DatacenterServer {
  readonly datacenter: string;
  /** Its WAN coordinate; undefined until one has been learned (it then counts as infinitely far). */
  readonly coordinate: Coordinate | undefined;
}

/**
 * Datacenters ordered as Consul's router orders them (GetDatacentersByDistance): this one first (everything
 * local counts as zero round-trip time), then by the median estimated round-trip time from `from` to their
 * servers, ties by name. The one implementation behind the agent's datacenter list (/v1/catalog/datacenters,
 * /v1/coordinate/datacenters, prepared-query failover's NearestN), so every caller sees the same order.
 */
export function datacentersByDistance(
  own: string,
  from: Coordinate | undefined,
  servers: readonly DatacenterServer[],
): string[] {
  const rtts = new Map<string, number[]>();
  for (const s of servers) {
    if (s.datacenter === own) continue;
    const list = rtts.get(s.datacenter) ?? [];
    list.push(coordinateDistance(from, s.coordinate));
    rtts.set(s.datacenter, list);
  }
  const others = [...rtts].map(([dc, list]) => ({ dc, median: median(list) }));
  others.sort((a, b) =>
    a.median !== b.median ? (a.median < b.median ? -1 : 1) : a.dc < b.dc ? -1 : a.dc > b.dc ? 1 : 0,
  );
  return [own, ...others.map((o) => o.dc)];
}

/** The upper median, as Consul takes it (rtts[len/2] of the sorted list). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.POSITIVE_INFINITY;
}
