/** Where a term's entries begin: the log from `index` on has `term`, up to the next run's index. */
export interface TermRun {
  index: number;
  term: number;
}

/**
 * The term of every log entry, kept as runs of equal terms. Terms never decrease along the log, so a log of
 * any length takes one run per term that had a leader appending: log matching (an append's prevTerm, a vote's
 * lastTerm, a rejection's hint) never needs the entries themselves, which may live only on disk.
 */
export class TermRuns {
  private starts: number[] = [];
  private terms: number[] = [];

  /** Runs as storage found them: ordered by index, terms increasing. */
  static from(runs: readonly TermRun[]): TermRuns {
    const r = new TermRuns();
    for (const run of runs) r.push(run.index, run.term);
    return r;
  }

  get length(): number {
    return this.starts.length;
  }

  /** Notes that entry `index` (the next one) has `term`. */
  push(index: number, term: number): void {
    const n = this.terms.length;
    if (n > 0 && this.terms[n - 1] === term) return;
    if (n > 0 && (this.terms[n - 1]! > term || this.starts[n - 1]! >= index)) {
      throw new Error(`term run ${index}/${term} goes back from ${this.starts[n - 1]}/${this.terms[n - 1]}`);
    }
    this.starts.push(index);
    this.terms.push(term);
  }

  /** The term of `index`, assumed within the log the runs describe; undefined before the first run. */
  termAt(index: number): number | undefined {
    const k = this.runOf(index);
    return k < 0 ? undefined : this.terms[k];
  }

  /**
   * The largest index <= `index` whose term is <= `term`, or `floor` if none lies above it: the last
   * possible match point for a log that has `term` at `index` (fast backtracking).
   */
  lastAtMost(index: number, term: number, floor: number): number {
    for (let k = this.runOf(index); k >= 0; k--) {
      if (this.terms[k]! <= term) return Math.max(floor, Math.min(index, this.runEnd(k, index)));
      if (this.starts[k]! <= floor + 1) break;
    }
    return floor;
  }

  /** Forgets entries from `index` on (a conflicting suffix replaced by the leader's). */
  truncateFrom(index: number): void {
    let n = this.starts.length;
    while (n > 0 && this.starts[n - 1]! >= index) n--;
    this.starts.length = n;
    this.terms.length = n;
  }

  /**
   * Forgets entries through `index` (compacted) of a log ending at `last`; the run holding index + 1 now
   * starts there.
   */
  dropThrough(index: number, last: number): void {
    if (index >= last) {
      this.clear();
      return;
    }
    const k = this.runOf(index + 1);
    if (k < 0) return;
    this.starts.splice(0, k);
    this.terms.splice(0, k);
    this.starts[0] = Math.max(this.starts[0]!, index + 1);
  }

  clear(): void {
    this.starts = [];
    this.terms = [];
  }

  toArray(): TermRun[] {
    return this.starts.map((index, k) => ({ index, term: this.terms[k]! }));
  }

  /** Index of the run holding `index` (-1 if it lies before the first). */
  private runOf(index: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid]! <= index) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** Last index of run `k` (for the last run: unbounded, so `fallback`). */
  private runEnd(k: number, fallback: number): number {
    const next = this.starts[k + 1];
    return next === undefined ? fallback : next - 1;
  }
}
