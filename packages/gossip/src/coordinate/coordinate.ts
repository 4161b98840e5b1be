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

/** A network coordinate as the spec's Coordinate object (distances in seconds). */
export interface Coordinate {
  Vec: number[];
  Error: number;
  Adjustment: number;
  Height: number;
}

const ZERO_THRESHOLD = 1e-6;

export function newCoordinate(config: VivaldiConfig): Coordinate {
  return {
    Vec: new Array<number>(config.dimensionality).fill(0),
    Error: config.vivaldiErrorMax,
    Adjustment: 0,
    Height: config.heightMin,
  };
}

export function cloneCoordinate(c: Coordinate): Coordinate {
  return { Vec: [...c.Vec], Error: c.Error, Adjustment: c.Adjustment, Height: c.Height };
}

/** Structural check for coordinates arriving from the network. */
export function isCoordinate(value: unknown, dimensionality: number): value is Coordinate {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Record<string, unknown>;
  return (
    Array.isArray(c.Vec) &&
    c.Vec.length === dimensionality &&
    c.Vec.every((x) => Number.isFinite(x)) &&
    Number.isFinite(c.Error) &&
    Number.isFinite(c.Adjustment) &&
    Number.isFinite(c.Height)
  );
}

export function isValidCoordinate(c: Coordinate): boolean {
  return (
    c.Vec.every(Number.isFinite) &&
    Number.isFinite(c.Error) &&
    Number.isFinite(c.Adjustment) &&
    Number.isFinite(c.Height)
  );
}

/** Euclidean distance plus both heights, without adjustments. */
export function rawDistance(a: Coordinate, b: Coordinate): number {
  let sum = 0;
  for (let i = 0; i < a.Vec.length; i++) {
    const d = (a.Vec[i] ?? 0) - (b.Vec[i] ?? 0);
    sum += d * d;
  }
  return Math.sqrt(sum) + a.Height + b.Height;
}

/** Estimated round-trip time in seconds; adjustments apply only when they keep it positive (as Serf). */
export function distance(a: Coordinate, b: Coordinate): number {
  const raw = rawDistance(a, b);
  const adjusted = raw + a.Adjustment + b.Adjustment;
  return adjusted > 0 ? adjusted : raw;
}

/** Moves `c` by `force` along the unit vector from `other` to `c`; height moves proportionally. */
export function applyForce(
  config: VivaldiConfig,
  c: Coordinate,
  force: number,
  other: Coordinate,
  random: () => number,
): Coordinate {
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

function unitVectorAt(a: number[], b: number[], random: () => number): { unit: number[]; magnitude: number } {
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

function norm(v: number[]): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum);
}
