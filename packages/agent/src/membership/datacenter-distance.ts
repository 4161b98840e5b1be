import type { Coordinate, DatacenterServer } from "@cairn/gossip";

/** A server in the WAN pool; gossip's datacentersByDistance orders datacenters from these. */
export interface WanServer extends DatacenterServer {
  /** WAN member name (`node.dc`). */
  name: string;
}

/** A coordinate as the response body carries it (a copy, so the pool's own stays untouched). */
interface CoordinateJson {
  Vec: number[];
  Error: number;
  Adjustment: number;
  Height: number;
}

export interface DatacenterCoordinates {
  Datacenter: string;
  AreaID: "WAN";
  Coordinates: { Node: string; Coord: CoordinateJson }[];
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
        Coord: copy(s.coordinate as Coordinate),
      }))
      .sort((a, b) => (a.Node < b.Node ? -1 : a.Node > b.Node ? 1 : 0));
    return { Datacenter: dc, AreaID: "WAN" as const, Coordinates: coordinates };
  });
}

function copy(c: Coordinate): CoordinateJson {
  return { Vec: [...c.Vec], Error: c.Error, Adjustment: c.Adjustment, Height: c.Height };
}
