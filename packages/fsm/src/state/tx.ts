import { Channels } from "../watch/keys.js";
import { joinKey, type Tables } from "./tables.js";

/**
 * One apply in progress: the tables being written, the index being applied and what changed (for watches).
 * Commands that may refuse part-way run on a clone and commit only on success.
 */
export class Tx {
  readonly kvChanged: string[] = [];
  readonly channels = new Set<string>();

  constructor(
    public tables: Tables,
    readonly index: number,
  ) {}

  changedKv(compositeKey: string): void {
    this.kvChanged.push(compositeKey);
    this.tables.indexes.kvs = this.index;
  }

  changedService(ns: string, name: string): void {
    this.tables.serviceIndexes.set(joinKey(ns, name), this.index);
    this.channels.add(Channels.serviceName(ns, name));
  }
}
