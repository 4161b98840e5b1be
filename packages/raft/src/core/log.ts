import { decodeConfEntry } from "./conf.js";
import type { ConfState, Entry } from "./types.js";

/**
 * The in-memory log: everything after the last snapshot. The core keeps the whole tail in memory
 * (compaction bounds it), so storage is write-only from the core's point of view.
 */
export class RaftLog {
  private ents: Entry[];
  /** Index and term of the last entry covered by the snapshot (0/0 before any). */
  offset: number;
  offsetTerm: number;
  /** The configuration in force at `offset`. */
  offsetConf: ConfState;
  /** First index not yet handed to the driver for persisting. */
  unstable: number;
  /**
   * Last index the driver reported durable whose entry (and every one before it) is still the one in
   * memory. Only entries through here may count as this server's own acknowledgement or be applied.
   */
  stable: number;

  constructor(offset: number, offsetTerm: number, offsetConf: ConfState, entries: Entry[]) {
    this.offset = offset;
    this.offsetTerm = offsetTerm;
    this.offsetConf = offsetConf;
    this.ents = entries.filter((e) => e.index > offset);
    for (let k = 0; k < this.ents.length; k++) {
      if (this.ents[k]!.index !== offset + 1 + k) throw new Error("restored log is not contiguous");
    }
    this.unstable = this.lastIndex() + 1;
    this.stable = this.lastIndex();
  }

  lastIndex(): number {
    return this.offset + this.ents.length;
  }

  lastTerm(): number {
    return this.ents.length === 0 ? this.offsetTerm : this.ents[this.ents.length - 1]!.term;
  }

  /** The term of entry `i`, or undefined when it is compacted away or beyond the end. */
  term(i: number): number | undefined {
    if (i === this.offset) return this.offsetTerm;
    return this.ents[i - this.offset - 1]?.term;
  }

  entry(i: number): Entry | undefined {
    return i > this.offset ? this.ents[i - this.offset - 1] : undefined;
  }

  /** Entries [lo, hi), stopping once `maxBytes` of payload is reached (but never returning none if any exist). */
  slice(lo: number, hi: number, maxBytes = Number.POSITIVE_INFINITY): Entry[] {
    if (lo <= this.offset) throw new Error(`slice from compacted index ${lo}`);
    const end = Math.min(hi, this.lastIndex() + 1);
    const out: Entry[] = [];
    let bytes = 0;
    for (let i = lo; i < end; i++) {
      const e = this.ents[i - this.offset - 1]!;
      bytes += e.data.length;
      if (out.length > 0 && bytes > maxBytes) break;
      out.push(e);
    }
    return out;
  }

  append(e: Entry): void {
    if (e.index !== this.lastIndex() + 1)
      throw new Error(`append at ${e.index}, last is ${this.lastIndex()}`);
    this.ents.push(e);
  }

  /**
   * Merge entries that follow a matched prevIndex: skip those already present with the same term,
   * truncate at the first conflict, append the rest. Returns the index truncated from (0 if none).
   */
  merge(entries: Entry[]): number {
    let truncatedFrom = 0;
    for (let k = 0; k < entries.length; k++) {
      const e = entries[k]!;
      const have = this.term(e.index);
      if (have === e.term) continue;
      if (have !== undefined) {
        this.truncateFrom(e.index);
        truncatedFrom = e.index;
      }
      for (let j = k; j < entries.length; j++) this.append(entries[j]!);
      break;
    }
    return truncatedFrom;
  }

  private truncateFrom(i: number): void {
    this.ents.length = i - this.offset - 1;
    if (this.unstable > i) this.unstable = i;
    if (this.stable >= i) this.stable = i - 1;
  }

  unstableEntries(): Entry[] {
    return this.unstable > this.lastIndex() ? [] : this.ents.slice(this.unstable - this.offset - 1);
  }

  markHandedOff(): void {
    this.unstable = this.lastIndex() + 1;
  }

  /**
   * Every write handed off so far is durable. What lies before `unstable` was handed off in one of them and
   * has not changed since (a truncation would have moved `unstable` back), so it is all on disk as it is here.
   */
  markStable(): void {
    this.stable = this.unstable - 1;
  }

  /** The configuration in force at `index` (the last conf entry at or before it, else the snapshot's). */
  confAt(index: number): { index: number; conf: ConfState } {
    for (let i = Math.min(index, this.lastIndex()); i > this.offset; i--) {
      const e = this.ents[i - this.offset - 1]!;
      if (e.kind === "conf") return { index: i, conf: decodeConfEntry(e.data).conf };
    }
    return { index: this.offset, conf: this.offsetConf };
  }

  /** Drop entries through `index` (already captured by a snapshot). */
  compact(index: number): void {
    if (index <= this.offset) return;
    if (index > this.lastIndex()) throw new Error(`compact ${index} beyond last index ${this.lastIndex()}`);
    const conf = this.confAt(index).conf;
    const term = this.term(index)!;
    this.ents = this.ents.slice(index - this.offset);
    this.offset = index;
    this.offsetTerm = term;
    this.offsetConf = conf;
  }

  /** Replace the whole log by a snapshot's position. */
  restore(index: number, term: number, conf: ConfState): void {
    this.ents = [];
    this.offset = index;
    this.offsetTerm = term;
    this.offsetConf = conf;
    this.unstable = index + 1;
    // The snapshot is not on disk yet (nothing at or before it is in memory to be applied anyway).
    if (this.stable > index) this.stable = index;
  }
}
