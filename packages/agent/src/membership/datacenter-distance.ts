import type { Coordinate, DatacenterServer } from "@cairn/gossip";

/** A server in the WAN pool; gossip's datacentersByDistance orders datacenters from these. */
export interface WanServer extends DatacenterServer {
  /** WAN member name (`node.dc`). */
  name: string;
}

export interface DatacenterCoordinates {
  Datacenter: string;
  AreaID: "WAN";
  Coordinates: { Node: string; Coord: Coordinate }[];
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
