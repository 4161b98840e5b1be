// Coordinates and their distance have one owner, gossip's coordinate module (no transport behind that import);
// re-exported so discovery's callers sort with exactly the values datacenter order uses.
import { type Coordinate, coordinateDistance } from "@cairn/gossip/coordinate";

export {
  type Coordinate,
  coordinateDistance,
  coordinateIsValid,
  coordinatesCompatible,
} from "@cairn/gossip/coordinate";

/**
 * Orders items by estimated round-trip time from `origin`, nearest first, as Consul's `near` does: items
 * without a coordinate go last, and equal distances keep their input order. Without an origin coordinate
 * there is nothing to sort by and the order is kept. Each item's coordinate is looked up once.
 */
export function sortByDistance<T>(
  items: readonly T[],
  origin: Coordinate | undefined,
  coordOf: (item: T) => Coordinate | undefined,
): T[] {
  if (origin === undefined) return [...items];
  const keyed = items.map((item, index) => ({
    item,
    index,
    distance: coordinateDistance(origin, coordOf(item)),
  }));
  keyed.sort((x, y) => (x.distance < y.distance ? -1 : x.distance > y.distance ? 1 : x.index - y.index));
  return keyed.map((entry) => entry.item);
}
