import { type Coordinate, sortByDistance } from "@cairn/discovery";
import type { StateView } from "@cairn/fsm";

/**
 * `near` sorting: results ordered by estimated round-trip time from the `near` node's coordinate, nearest
 * first, comparing coordinates of the same segment. Without a coordinate for the origin (unknown node, or no
 * update yet) the order is left as it is, as Consul does; results whose node has no coordinate go last.
 */
export function sortNear<T>(
  view: StateView,
  near: string | undefined,
  items: readonly T[],
  nodeOf: (item: T) => string,
): readonly T[] {
  if (near === undefined || items.length < 2) return items;
  const own = view.coordinates(near).value;
  const origin = own.find((c) => c.Segment === "") ?? own[0];
  if (origin === undefined) return items;
  const bySegment = new Map<string, Coordinate>();
  for (const c of view.coordinates().value) {
    if (c.Segment === origin.Segment) bySegment.set(c.Node, c.Coord);
  }
  return sortByDistance(items, origin.Coord, (item) => bySegment.get(nodeOf(item)));
}
