/**
 * Network coordinates as Consul stores them (Serf's Vivaldi coordinates) and the round-trip estimates `near`
 * sorting is based on.
 */
export interface Coordinate {
  /** Euclidean position, in seconds; 8 dimensions with Consul's defaults. */
  readonly Vec: readonly number[];
  readonly Error: number;
  readonly Adjustment: number;
  readonly Height: number;
}

/** Every component finite, as Consul requires of a coordinate update. */
export function coordinateIsValid(c: Coordinate): boolean {
  return (
    c.Vec.every(Number.isFinite) &&
    Number.isFinite(c.Error) &&
    Number.isFinite(c.Adjustment) &&
    Number.isFinite(c.Height)
  );
}

/** Coordinates can only be compared when their vectors have the same number of dimensions. */
export function coordinatesCompatible(a: Coordinate, b: Coordinate): boolean {
  return a.Vec.length === b.Vec.length;
}

/**
 * Estimated round-trip time between two coordinates, in seconds: the Euclidean distance of the vectors plus
 * both heights, plus both adjustments when that sum stays positive. Like Consul's ComputeDistance it goes
 * through a whole number of nanoseconds (Go's time.Duration) and is +Infinity when either side is missing;
 * incompatible or non-finite coordinates, which Consul would fail on, are +Infinity too.
 */
export function coordinateDistance(a: Coordinate | undefined, b: Coordinate | undefined): number {
  if (a === undefined || b === undefined || !coordinatesCompatible(a, b)) return Number.POSITIVE_INFINITY;
  let sumOfSquares = 0;
  for (let i = 0; i < a.Vec.length; i++) {
    const d = a.Vec[i]! - b.Vec[i]!;
    sumOfSquares += d * d;
  }
  let seconds = Math.sqrt(sumOfSquares) + a.Height + b.Height;
  const adjusted = seconds + a.Adjustment + b.Adjustment;
  if (adjusted > 0) seconds = adjusted;
  if (!Number.isFinite(seconds)) return Number.POSITIVE_INFINITY;
  return durationSeconds(Math.trunc(seconds * 1e9));
}

/** Go's Duration.Seconds(): whole seconds plus the nanosecond remainder. */
function durationSeconds(nanoseconds: number): number {
  const whole = Math.trunc(nanoseconds / 1e9);
  return whole + (nanoseconds - whole * 1e9) / 1e9;
}

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
