import { prefixEnd, SEP } from "../store/keys.js";
import { channelRead, type Read, type ViewScope } from "../store/read.js";
import type { CoordinateEntry } from "./records.js";
import { coordinatesChannel } from "./tables.js";

/** All coordinates, or one node's (one per segment). */
export function coordinates(v: ViewScope, node?: string): Read<CoordinateEntry[]> {
  const out: CoordinateEntry[] = [];
  if (node === undefined) v.t.coordinates.forEach((c) => void out.push(c));
  else {
    const p = node + SEP;
    v.t.coordinates.forRange(p, prefixEnd(p), false, (_, c) => void out.push(c));
  }
  return channelRead(v, out, v.t.indexes.coordinates, coordinatesChannel);
}
