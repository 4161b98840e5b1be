import { Channels } from "../watch/keys.js";
import { joinKey, type Tables } from "./tables.js";

const NONE: readonly string[] = [];

/**
 * One apply in progress: the tables being written, the index being applied and what changed (for watches).
 * Commands that may refuse part-way run on a clone and commit only on success.
 */
export class Tx {
  // Allocated on first use: most applies touch one KV key and no channel.
  #kvChanged: string[] | undefined;
  #channels: Set<string> | undefined;

  constructor(
    public tables: Tables,
    readonly index: number,
  ) {}

  get kvChanged(): readonly string[] {
    return this.#kvChanged ?? NONE;
  }

  get channels(): Iterable<string> {
    return this.#channels ?? NONE;
  }

  changedKv(compositeKey: string): void {
    this.#kvChanged ??= [];
    this.#kvChanged.push(compositeKey);
    this.tables.indexes.kvs = this.index;
  }

  /** A named watch channel changed (a table, a service name, a node). */
  touch(channel: string): void {
    this.#channels ??= new Set();
    this.#channels.add(channel);
  }

  changedService(ns: string, name: string): void {
    this.tables.serviceIndexes.set(joinKey(ns, name), this.index);
    this.touch(Channels.serviceName(ns, name));
  }
}
