import { describe, expect, it } from "vitest";
import {
  type Coordinate,
  coordinateDistance,
  coordinateIsValid,
  coordinatesCompatible,
  sortByDistance,
} from "../src/index.js";

function coord(vec: number[], extra: Partial<Omit<Coordinate, "Vec">> = {}): Coordinate {
  return { Vec: vec, Error: 1.5, Adjustment: 0, Height: 0, ...extra };
}

/** 8 dimensions as Consul uses, with the first components set. */
function coord8(head: number[], extra: Partial<Omit<Coordinate, "Vec">> = {}): Coordinate {
  return coord([...head, ...new Array(8 - head.length).fill(0)], extra);
}

describe("coordinateDistance", () => {
  // The vectors and expected values of Serf's own DistanceTo test.
  const a = [-0.5, 1.3, 2.4];
  const b = [1.2, -2.3, 3.4];
  const euclid = 4.104875150354758;

  it("is the Euclidean distance of the vectors", () => {
    expect(coordinateDistance(coord(a), coord(a))).toBe(0);
    expect(coordinateDistance(coord(a), coord(b))).toBeCloseTo(euclid, 9);
    expect(coordinateDistance(coord(b), coord(a))).toBe(coordinateDistance(coord(a), coord(b)));
  });

  it("adds both heights", () => {
    expect(coordinateDistance(coord(a, { Height: 0.7 }), coord(b, { Height: 0.1 }))).toBeCloseTo(
      euclid + 0.8,
      9,
    );
  });

  it("adds both adjustments while the sum stays positive, and ignores them otherwise", () => {
    expect(coordinateDistance(coord(a, { Adjustment: 0.1 }), coord(b, { Adjustment: 0.2 }))).toBeCloseTo(
      euclid + 0.3,
      9,
    );
    expect(coordinateDistance(coord(a, { Adjustment: -1.0e6 }), coord(b))).toBeCloseTo(euclid, 9);
    expect(coordinateDistance(coord(a, { Adjustment: -1 }), coord(b, { Adjustment: -0.5 }))).toBeCloseTo(
      euclid - 1.5,
      9,
    );
    expect(coordinateDistance(coord(a, { Adjustment: -euclid }), coord(b))).toBeCloseTo(euclid, 9);
    expect(
      coordinateDistance(
        coord(a, { Height: 0.7, Adjustment: 0.1 }),
        coord(b, { Height: 0.1, Adjustment: 0.2 }),
      ),
    ).toBeCloseTo(euclid + 0.3 + 0.8, 9);
  });

  it("goes through whole nanoseconds, as Go's time.Duration does", () => {
    expect(coordinateDistance(coord8([0.0012345678]), coord8([0]))).toBe(0.001234567);
    expect(coordinateDistance(coord8([2.5000000019]), coord8([0]))).toBe(2.500000001);
    // 3-4-5 triangle in milliseconds plus 10µs heights (Consul's HeightMin): the float sum is a hair under
    // 5.02ms, and truncating to nanoseconds, as Go's Duration conversion does, keeps 5019999ns.
    expect(coordinateDistance(coord8([0.003], { Height: 1e-5 }), coord8([0, 0.004], { Height: 1e-5 }))).toBe(
      0.005019999,
    );
  });

  it("is infinite when a coordinate is missing or the two cannot be compared", () => {
    expect(coordinateDistance(undefined, coord8([]))).toBe(Number.POSITIVE_INFINITY);
    expect(coordinateDistance(coord8([]), undefined)).toBe(Number.POSITIVE_INFINITY);
    expect(coordinateDistance(coord([1, 2]), coord([1, 2, 3]))).toBe(Number.POSITIVE_INFINITY);
    expect(coordinateDistance(coord([Number.NaN]), coord([0]))).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("coordinate checks", () => {
  it("accepts finite coordinates only", () => {
    expect(coordinateIsValid(coord8([0.1], { Height: 1e-5 }))).toBe(true);
    expect(coordinateIsValid(coord8([Number.NaN]))).toBe(false);
    expect(coordinateIsValid(coord8([], { Height: Number.POSITIVE_INFINITY }))).toBe(false);
    expect(coordinateIsValid(coord8([], { Error: Number.NaN }))).toBe(false);
    expect(coordinateIsValid(coord8([], { Adjustment: Number.NEGATIVE_INFINITY }))).toBe(false);
  });

  it("compares dimensionality", () => {
    expect(coordinatesCompatible(coord8([]), coord8([1]))).toBe(true);
    expect(coordinatesCompatible(coord([0]), coord8([]))).toBe(false);
  });
});

describe("sortByDistance", () => {
  const coords = new Map<string, Coordinate>([
    ["origin", coord8([0])],
    ["near", coord8([0.001])],
    ["mid", coord8([0.005])],
    ["mid-too", coord8([0, 0.005])],
    ["far", coord8([0.1])],
  ]);
  const lookup = (name: string) => coords.get(name);

  it("orders nearest first, puts items without coordinates last, and keeps ties in input order", () => {
    const items = ["far", "unknown-1", "mid-too", "near", "unknown-2", "mid", "origin"];
    expect(sortByDistance(items, coords.get("origin"), lookup)).toEqual([
      "origin",
      "near",
      "mid-too",
      "mid",
      "far",
      "unknown-1",
      "unknown-2",
    ]);
  });

  it("keeps the input order when the origin has no coordinate, and never changes its input", () => {
    const items = ["far", "near", "origin"];
    const sorted = sortByDistance(items, undefined, lookup);
    expect(sorted).toEqual(items);
    expect(sorted).not.toBe(items);
    sortByDistance(items, coords.get("origin"), lookup);
    expect(items).toEqual(["far", "near", "origin"]);
  });

  it("looks each item's coordinate up once", () => {
    const items = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? "near" : i % 3 === 1 ? "far" : "mid"));
    let lookups = 0;
    sortByDistance(items, coords.get("origin"), (name) => {
      lookups++;
      return coords.get(name);
    });
    expect(lookups).toBe(items.length);
  });
});
