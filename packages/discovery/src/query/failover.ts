import type { QueryFailover } from "./types.js";

/**
 * Which remote datacenters a prepared query tries, in order, when the local one has no healthy instance:
 * the NearestN other datacenters by round-trip time, then the fixed Datacenters list, each datacenter once
 * and only known ones (unknown names are skipped, as Consul does). Federation forwards along this plan;
 * with one datacenter it is empty and Failovers stays 0.
 */
export function planFailover(
  failover: QueryFailover,
  local: string,
  byDistance: readonly string[],
): string[] {
  const others = byDistance.filter((dc) => dc !== local);
  const plan = others.slice(0, Math.max(0, failover.NearestN));
  const known = new Set(others);
  for (const dc of failover.Datacenters ?? []) {
    if (known.has(dc) && !plan.includes(dc)) plan.push(dc);
  }
  return plan;
}
