export interface Coord {
  readonly Vec: readonly number[];
  readonly Error: number;
  readonly Adjustment: number;
  readonly Height: number;
}

export interface CoordinateEntry {
  readonly Node: string;
  readonly Segment: string;
  readonly Coord: Coord;
  readonly ModifyIndex: number;
}
