import type { Versioned } from "../commands/version.js";
import type { Coord } from "./records.js";

export interface CoordinateUpdate {
  readonly Node: string;
  readonly Segment?: string;
  readonly Coord: Coord;
}

/** Updates for unknown nodes are skipped, as Consul does. */
export interface CoordinateBatchUpdateCommand extends Versioned {
  readonly type: "coordinate.batch-update";
  readonly updates: readonly CoordinateUpdate[];
}
