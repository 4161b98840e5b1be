import { type Coordinate, distance } from "@cairn/gossip";

export interface WanServer {
  /** WAN member name (`node.dc`). */
  name: string;
  datacenter: string;
  coordinate: Coordinate | undefined;
}

export interface DatacenterCoordinates {
  Datacenter: string;
  AreaID: "WAN";
  Coordinates: { Node: string; Coord: Coordinate }[];
}

/**
 * Datacenters ordered as Consul's router orders them: this one first, then by the median estimated
 * round-trip time to their servers (unknown coordinates count as infinitely far), ties by name.
 */
export function datacentersByDistance(
  own: string,
  from: Coordinate,
  servers: readonly WanServer[],
): string[] {
  const rtts = new Map<string, number[]>();
  for (const s of servers) {
    if (s.datacenter === own) continue;
    const list = rtts.get(s.datacenter) ?? [];
    list.push(s.coordinate ? distance(from, s.coordinate) : Number.POSITIVE_INFINITY);
    rtts.set(s.datacenter, list);
  }
  const others = [...rtts].map(([dc, list]) => ({ dc, median: median(list) }));
  others.sort((a, b) => a.median - b.median || (a.dc < b.dc ? -1 : a.dc > b.dc ? 1 : 0));
  return [own, ...others.map((o) => o.dc)];
}

/** The servers' WAN coordinates per datacenter, names without their `.dc` suffix (as Consul strips it). */
export function datacenterCoordinates(
  order: readonly string[],
  servers: readonly WanServer[],
): DatacenterCoordinates[] {
  return order.map((dc) => {
    const suffix = `.${dc}`;
    const coordinates = servers
      .filter((s) => s.datacenter === dc && s.coordinate !== undefined)
      .map((s) => ({
        Node: s.name.endsWith(suffix) ? s.name.slice(0, -suffix.length) : s.name,
        Coord: s.coordinate as Coordinate,
      }))
      .sort((a, b) => (a.Node < b.Node ? -1 : a.Node > b.Node ? 1 : 0));
    return { Datacenter: dc, AreaID: "WAN" as const, Coordinates: coordinates };
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.POSITIVE_INFINITY;
}
