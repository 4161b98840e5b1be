import { joinKey, prefixEnd, SEP } from "../store/keys.js";
import type { Tx } from "../store/tx.js";
import type { CoordinateEntry } from "./records.js";
import { coordinatesChannel } from "./tables.js";

function changed(tx: Tx): void {
  tx.tables.indexes.coordinates = tx.index;
  tx.touch(coordinatesChannel);
}

/** Updates for unknown nodes are skipped, as Consul does. */
export function updateCoordinate(tx: Tx, update: Omit<CoordinateEntry, "ModifyIndex">): void {
  const t = tx.tables;
  if (!t.nodes.has(update.Node)) return;
  t.coordinates.set(joinKey(update.Node, update.Segment), { ...update, ModifyIndex: tx.index });
  changed(tx);
}

/** A deregistered node's coordinates (every segment) go with it. */
export function deleteNodeCoordinates(tx: Tx, node: string): void {
  const t = tx.tables;
  const prefix = node + SEP;
  const doomed: string[] = [];
  t.coordinates.forRange(prefix, prefixEnd(prefix), false, (k) => void doomed.push(k));
  for (const k of doomed) t.coordinates.delete(k);
  if (doomed.length > 0) changed(tx);
}
