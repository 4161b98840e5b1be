import { decodeConfEntry } from "./conf.js";
import { TermRuns } from "./term-runs.js";
import type { ConfState, Entry, LogBounds, LogCacheLimits } from "./types.js";

/**
 * The log since the last snapshot, as the core sees it. Only this is held in memory, whatever the log's length:
 * - the term of every index, as runs (TermRuns): what log matching needs;
 * - the configuration of every conf entry: what membership and compaction need;
 * - a window of the newest entries: everything not yet durable (the driver may not have it on disk yet) and,
 *   within `limits`, recent durable ones, so a healthy cluster replicates and applies from memory;
 * - the last range read back from storage (`supply`), for a lagging follower or applying after a restart.
 * An entry that is in neither must be fetched: see RaftCore's `fetch` in Ready.
 */
export class RaftLog {
  /** Index and term of the last entry covered by the snapshot (0/0 before any). */
  offset: number;
  offsetTerm: number;
  /** The configuration in force at `offset`. */
  offsetConf: ConfState;
  private last: number;
  private readonly runs: TermRuns;
  private confs: { index: number; conf: ConfState }[];
  /** Window entries are ents[head..]; it ends at `last`. Dropped from the front without copying each time. */
  private ents: Entry[];
  private head = 0;
  private windowBytes = 0;
  /** A contiguous range read back from storage, all before the window. */
  private fetched: Entry[] = [];
  /** First index not yet handed to the driver for persisting. */
  unstable: number;
  /**
   * Last index the driver reported durable whose entry (and every one before it) is still the one in
   * memory. Only entries through here may count as this server's own acknowledgement or be applied.
   */
  stable: number;

  constructor(
    offset: number,
    offsetTerm: number,
    offsetConf: ConfState,
    entries: Entry[],
    private readonly limits: LogCacheLimits = {
      maxEntries: Number.POSITIVE_INFINITY,
      maxBytes: Number.POSITIVE_INFINITY,
    },
    bounds?: LogBounds,
  ) {
    this.offset = offset;
    this.offsetTerm = offsetTerm;
    this.offsetConf = offsetConf;
    const tail = entries.filter((e) => e.index > offset);
    if (bounds) {
      // Storage knows the whole log's shape; `entries` are only its newest part.
      this.last = Math.max(bounds.lastIndex, offset);
      this.runs = TermRuns.from(bounds.terms);
      this.runs.dropThrough(offset, this.last);
      this.confs = bounds.confs
        .filter((e) => e.index > offset && e.index <= this.last)
        .map((e) => ({ index: e.index, conf: decodeConfEntry(e.data).conf }));
      const start = this.last + 1 - tail.length;
      for (let k = 0; k < tail.length; k++) {
        if (tail[k]!.index !== start + k) throw new Error("restored log tail does not end at the last index");
        if (this.runs.termAt(start + k) !== tail[k]!.term)
          throw new Error("restored log tail disagrees with its terms");
      }
    } else {
      this.last = offset;
      this.runs = new TermRuns();
      this.confs = [];
      for (let k = 0; k < tail.length; k++) {
        if (tail[k]!.index !== offset + 1 + k) throw new Error("restored log is not contiguous");
        this.noteAppended(tail[k]!);
      }
      this.last = offset + tail.length;
    }
    this.ents = tail;
    for (const e of tail) this.windowBytes += e.data.length;
    this.unstable = this.last + 1;
    this.stable = this.last;
  }

  lastIndex(): number {
    return this.last;
  }

  lastTerm(): number {
    return this.term(this.last)!;
  }

  /** The term of entry `i`, or undefined when it is compacted away or beyond the end. */
  term(i: number): number | undefined {
    if (i === this.offset) return this.offsetTerm;
    if (i < this.offset || i > this.last) return undefined;
    return this.runs.termAt(i);
  }

  /** The largest index <= `i` whose term is <= `term` (at least the snapshot's index). */
  lastAtMost(i: number, term: number): number {
    return this.runs.lastAtMost(Math.min(i, this.last), term, this.offset);
  }

  /** First index held in the window (last + 1 when it is empty). */
  private windowFirst(): number {
    return this.last + 1 - (this.ents.length - this.head);
  }

  /** The entry at `i` if it is in memory (window or the last fetched range). */
  entry(i: number): Entry | undefined {
    if (i <= this.offset || i > this.last) return undefined;
    const first = this.windowFirst();
    if (i >= first) return this.ents[this.head + i - first];
    const f = this.fetched[0];
    return f && i >= f.index ? this.fetched[i - f.index] : undefined;
  }

  /** Whether entry `i` (in the log) must be read from storage first. */
  missing(i: number): boolean {
    return i > this.offset && i <= this.last && this.entry(i) === undefined;
  }

  /**
   * Entries [lo, hi) that are in memory, from lo, stopping at the first one that is not or once `maxBytes` of
   * payload is reached (but never returning none if lo is there).
   */
  slice(lo: number, hi: number, maxBytes = Number.POSITIVE_INFINITY): Entry[] {
    if (lo <= this.offset) throw new Error(`slice from compacted index ${lo}`);
    const end = Math.min(hi, this.last + 1);
    const out: Entry[] = [];
    let bytes = 0;
    for (let i = lo; i < end; i++) {
      const e = this.entry(i);
      if (!e) break;
      bytes += e.data.length;
      if (out.length > 0 && bytes > maxBytes) break;
      out.push(e);
    }
    return out;
  }

  /** Where a read from storage must stop (the window holds the rest): at most `hi`. */
  fetchEnd(hi: number): number {
    return Math.min(hi, this.windowFirst());
  }

  /**
   * Entries read back from storage. They replace the previous fetched range; any that no longer belong to the
   * log (compacted, or replaced by a leader meanwhile: their term differs) are ignored, and so is the rest.
   */
  supply(entries: readonly Entry[]): void {
    const first = this.windowFirst();
    const kept: Entry[] = [];
    for (const e of entries) {
      if (e.index <= this.offset) continue;
      const prev = kept[kept.length - 1];
      if (e.index >= first || this.runs.termAt(e.index) !== e.term || (prev && e.index !== prev.index + 1))
        break;
      kept.push(e);
    }
    if (kept.length > 0) this.fetched = kept;
  }

  append(e: Entry): void {
    if (e.index !== this.last + 1) throw new Error(`append at ${e.index}, last is ${this.last}`);
    this.noteAppended(e);
    this.last = e.index;
    this.ents.push(e);
    this.windowBytes += e.data.length;
  }

  private noteAppended(e: Entry): void {
    this.runs.push(e.index, e.term);
    if (e.kind === "conf") this.confs.push({ index: e.index, conf: decodeConfEntry(e.data).conf });
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
    const first = this.windowFirst();
    if (i >= first) {
      for (let k = this.head + i - first; k < this.ents.length; k++)
        this.windowBytes -= this.ents[k]!.data.length;
      this.ents.length = this.head + i - first;
    } else {
      // The conflict lies before the window: nothing in it survives; the new entries start a new one.
      this.ents = [];
      this.head = 0;
      this.windowBytes = 0;
      this.fetched = this.fetched.filter((e) => e.index < i);
    }
    this.runs.truncateFrom(i);
    while (this.confs.length > 0 && this.confs[this.confs.length - 1]!.index >= i) this.confs.pop();
    this.last = i - 1;
    if (this.unstable > i) this.unstable = i;
    if (this.stable >= i) this.stable = i - 1;
  }

  unstableEntries(): Entry[] {
    return this.unstable > this.last ? [] : this.ents.slice(this.head + this.unstable - this.windowFirst());
  }

  markHandedOff(): void {
    this.unstable = this.last + 1;
  }

  /**
   * Every write handed off so far is durable. What lies before `unstable` was handed off in one of them and
   * has not changed since (a truncation would have moved `unstable` back), so it is all on disk as it is here.
   */
  markStable(): void {
    this.stable = this.unstable - 1;
  }

  /**
   * Keeps the window within its limits by dropping its oldest entries that are durable (storage can give them
   * back) and through `handedOff` (committed entries about to be applied stay: reading them back would only
   * cost; uncommitted ones are bounded by the leader's maxUncommittedEntries).
   */
  trim(handedOff = Number.POSITIVE_INFINITY): void {
    const first = this.windowFirst();
    const upTo = Math.min(this.stable, handedOff);
    let n = 0;
    while (
      this.head + n < this.ents.length &&
      first + n <= upTo &&
      (this.ents.length - this.head - n > this.limits.maxEntries || this.windowBytes > this.limits.maxBytes)
    ) {
      this.windowBytes -= this.ents[this.head + n]!.data.length;
      n++;
    }
    if (n === 0) return;
    this.head += n;
    // Copy only once the dropped part outweighs the kept one, so dropping stays linear overall.
    if (this.head > 1024 && this.head * 2 > this.ents.length) {
      this.ents = this.ents.slice(this.head);
      this.head = 0;
    }
  }

  /** The configuration in force at `index` (the last conf entry at or before it, else the snapshot's). */
  confAt(index: number): { index: number; conf: ConfState } {
    for (let k = this.confs.length - 1; k >= 0; k--) {
      const c = this.confs[k]!;
      if (c.index <= index) return c;
    }
    return { index: this.offset, conf: this.offsetConf };
  }

  /** Drop entries through `index` (already captured by a snapshot). */
  compact(index: number): void {
    if (index <= this.offset) return;
    if (index > this.last) throw new Error(`compact ${index} beyond last index ${this.last}`);
    const conf = this.confAt(index).conf;
    const term = this.term(index)!;
    const first = this.windowFirst();
    if (index >= first) {
      for (let k = this.head; k < this.head + index + 1 - first; k++)
        this.windowBytes -= this.ents[k]!.data.length;
      this.ents = this.ents.slice(this.head + index + 1 - first);
      this.head = 0;
    }
    this.fetched = this.fetched.filter((e) => e.index > index);
    this.runs.dropThrough(index, this.last);
    this.confs = this.confs.filter((c) => c.index > index);
    this.offset = index;
    this.offsetTerm = term;
    this.offsetConf = conf;
  }

  /** Replace the whole log by a snapshot's position. */
  restore(index: number, term: number, conf: ConfState): void {
    this.ents = [];
    this.head = 0;
    this.windowBytes = 0;
    this.fetched = [];
    this.runs.clear();
    this.confs = [];
    this.last = index;
    this.offset = index;
    this.offsetTerm = term;
    this.offsetConf = conf;
    this.unstable = index + 1;
    // The snapshot is not on disk yet (nothing at or before it is in memory to be applied anyway).
    if (this.stable > index) this.stable = index;
  }
}
