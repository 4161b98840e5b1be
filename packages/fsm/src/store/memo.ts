/**
 * Results of expensive reads, remembered by what they read and the index that read reports. A read may be
 * memoized only when its index moves on every change to what it depends on: then an equal index means an
 * equal answer, whichever view asks. The store starts a new memo when it restores a snapshot, since indexes
 * rebuilt from a snapshot need not move as the old ones did; a caller keeps the memo of the view it read.
 *
 * Bounded by a weight budget (roughly bytes, as each caller weighs its values): the least recently used
 * entries go first.
 */
export class ReadMemo {
  readonly #entries = new Map<string, { index: number; value: unknown; weight: number }>();
  #weight = 0;

  constructor(readonly budget = 64 * 1024 * 1024) {}

  /** `compute()`'s value for `key` at `index`, computed at most once while it stays among the recent. */
  get<T>(key: string, index: number, compute: () => T, weigh: (value: T) => number): T {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key); // re-inserted below: the Map's order is the recency order
      if (hit.index === index) {
        this.#entries.set(key, hit);
        return hit.value as T;
      }
      this.#weight -= hit.weight;
    }
    const value = compute();
    const weight = weigh(value) + key.length;
    if (weight > this.budget / 8) return value; // one huge answer would evict everything else
    this.#entries.set(key, { index, value, weight });
    this.#weight += weight;
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight <= this.budget) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
    }
    return value;
  }

  get size(): number {
    return this.#entries.size;
  }

  get weight(): number {
    return this.#weight;
  }
}
