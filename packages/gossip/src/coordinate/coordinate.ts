/** Serf's Vivaldi tuning (coordinate.DefaultConfig). */
export interface VivaldiConfig {
  dimensionality: number;
  vivaldiErrorMax: number;
  vivaldiCE: number;
  vivaldiCC: number;
  adjustmentWindowSize: number;
  heightMin: number;
  latencyFilterSize: number;
  gravityRho: number;
}

export function defaultVivaldiConfig(): VivaldiConfig {
  return {
    dimensionality: 8,
    vivaldiErrorMax: 1.5,
    vivaldiCE: 0.25,
    vivaldiCC: 0.25,
    adjustmentWindowSize: 20,
    heightMin: 10e-6,
    latencyFilterSize: 3,
    gravityRho: 150,
  };
}

/**
 * A network coordinate as Consul stores and serves it (Serf's Vivaldi coordinate; distances in seconds). This is
 * the one Coordinate type: gossip computes it, the catalog stores it, `near` sorting and datacenter order read it.
 */
export interface Coordinate {
  /** Euclidean position, in seconds; 8 dimensions with Consul's defaults. */
  readonly Vec: readonly number[];
  readonly Error: number;
  readonly Adjustment: number;
  readonly Height: number;
}

/** A coordinate the Vivaldi client may change in place (its own, and copies it hands out). */
export interface MutableCoordinate {
  Vec: number[];
  Error: number;
  Adjustment: number;
  Height: number;
}

const ZERO_THRESHOLD = 1e-6;

export function newCoordinate(config: VivaldiConfig): MutableCoordinate {
  return {
    Vec: new Array<number>(config.dimensionality).fill(0),
    Error: config.vivaldiErrorMax,
    Adjustment: 0,
    Height: config.heightMin,
  };
}

export function cloneCoordinate(c: Coordinate): MutableCoordinate {
  return { Vec: [...c.Vec], Error: c.Error, Adjustment: c.Adjustment, Height: c.Height };
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

/** Structural check for coordinates arriving from the network. */
export function isCoordinate(value: unknown, dimensionality: number): value is Coordinate {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Record<string, unknown>;
  return (
    Array.isArray(c.Vec) &&
    c.Vec.length === dimensionality &&
    typeof c.Error === "number" &&
    typeof c.Adjustment === "number" &&
    typeof c.Height === "number" &&
    coordinateIsValid(c as unknown as Coordinate)
  );
}

/** Euclidean distance plus both heights, without adjustments, in seconds and unrounded (Serf's rawDistanceTo). */
export function rawDistance(a: Coordinate, b: Coordinate): number {
  let sum = 0;
  for (let i = 0; i < a.Vec.length; i++) {
    const d = (a.Vec[i] ?? 0) - (b.Vec[i] ?? 0);
    sum += d * d;
  }
  return Math.sqrt(sum) + a.Height + b.Height;
}

/**
 * Estimated round-trip time between two coordinates, in seconds: the raw distance plus both adjustments when
 * that sum stays positive. Like Serf's DistanceTo and Consul's ComputeDistance it goes through a whole number
 * of nanoseconds (Go's time.Duration), so every caller (Vivaldi updates, `near` sorting, datacenter order)
 * compares the same values. +Infinity when either side is missing; incompatible or non-finite coordinates,
 * which Consul would fail on, are +Infinity too.
 */
export function coordinateDistance(a: Coordinate | undefined, b: Coordinate | undefined): number {
  if (a === undefined || b === undefined || !coordinatesCompatible(a, b)) return Number.POSITIVE_INFINITY;
  const raw = rawDistance(a, b);
  const adjusted = raw + a.Adjustment + b.Adjustment;
  const seconds = adjusted > 0 ? adjusted : raw;
  if (!Number.isFinite(seconds)) return Number.POSITIVE_INFINITY;
  return durationSeconds(Math.trunc(seconds * 1e9));
}

/** Go's Duration.Seconds(): whole seconds plus the nanosecond remainder. */
function durationSeconds(nanoseconds: number): number {
  const whole = Math.trunc(nanoseconds / 1e9);
  return whole + (nanoseconds - whole * 1e9) / 1e9;
}

/** Moves `c` by `force` along the unit vector from `other` to `c`; height moves proportionally. */
export function applyForce(
  config: VivaldiConfig,
  c: Coordinate,
  force: number,
  other: Coordinate,
  random: () => number,
): MutableCoordinate {
  const { unit, magnitude } = unitVectorAt(c.Vec, other.Vec, random);
  const result = cloneCoordinate(c);
  for (let i = 0; i < result.Vec.length; i++) result.Vec[i] = (result.Vec[i] ?? 0) + (unit[i] ?? 0) * force;
  if (magnitude > ZERO_THRESHOLD) {
    result.Height = Math.max(
      ((result.Height + other.Height) * force) / magnitude + result.Height,
      config.heightMin,
    );
  }
  return result;
}

function unitVectorAt(
  a: readonly number[],
  b: readonly number[],
  random: () => number,
): { unit: number[]; magnitude: number } {
  const diff = a.map((x, i) => x - (b[i] ?? 0));
  const magnitude = norm(diff);
  if (magnitude > ZERO_THRESHOLD) return { unit: diff.map((x) => x / magnitude), magnitude };
  // Coincident points: push in a random direction so they can separate.
  const randomDir = diff.map(() => random() - 0.5);
  const randomMagnitude = norm(randomDir);
  if (randomMagnitude > ZERO_THRESHOLD)
    return { unit: randomDir.map((x) => x / randomMagnitude), magnitude: 0 };
  const fallback = diff.map((_, i) => (i === 0 ? 1 : 0));
  return { unit: fallback, magnitude: 0 };
}

function norm(v: readonly number[]): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum);
}
