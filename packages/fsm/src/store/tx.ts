import type { Tables } from "./tables.js";

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

  /** A KV key (composite `ns \0 key`) changed: its exact and prefix watchers wake. */
  changedKv(compositeKey: string): void {
    this.#kvChanged ??= [];
    this.#kvChanged.push(compositeKey);
  }

  /** A named watch channel changed (a table, a service name, a node). */
  touch(channel: string): void {
    this.#channels ??= new Set();
    this.#channels.add(channel);
  }
}
