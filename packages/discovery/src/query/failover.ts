import { type Coordinate, coordinateDistance } from "../coordinate.js";
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

export interface DatacenterCoordinates {
  readonly name: string;
  /** The WAN coordinates of the datacenter's servers. */
  readonly servers: readonly Coordinate[];
}

/**
 * Datacenters ordered by the median estimated round-trip time from `origin` to their servers, then by
 * name; a datacenter without coordinates sorts after every measured one.
 */
export function datacentersByDistance(
  origin: Coordinate | undefined,
  dcs: readonly DatacenterCoordinates[],
): string[] {
  const median = (dc: DatacenterCoordinates): number => {
    const rtts = dc.servers.map((c) => coordinateDistance(origin, c)).sort((a, b) => a - b);
    if (rtts.length === 0) return Number.POSITIVE_INFINITY;
    return rtts[Math.floor(rtts.length / 2)]!;
  };
  return dcs
    .map((dc) => ({ name: dc.name, rtt: median(dc) }))
    .sort((a, b) =>
      a.rtt !== b.rtt ? (a.rtt < b.rtt ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )
    .map((dc) => dc.name);
}
