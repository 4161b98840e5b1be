/**
 * Values shared per store view. When a change wakes thousands of blocking queries that asked the same
 * question, they all read the same view of the store: the first one reads (or encodes the answer) and the
 * rest take the same value; between two writes, repeated reads of the same data share it too. Keyed by the
 * view object, not its index, because a snapshot restore can bring an index back with other data.
 * Everything is dropped when a newer view shows up. Values are shared: no one may change them.
 *
 * The bound keeps distinct questions between two writes from growing it. It holds the questions asked most
 * recently, in two generations of at most half the bound each: a question goes into the young one, and when
 * that is full it becomes the old one and the older one is dropped; a question found in the old one moves
 * back to the young one. So a question asked again and again stays while a stream of one-off questions goes
 * by. (Before, the memo stopped remembering once full: after 1,024 distinct reads, a key read thousands of
 * times a second was read and encoded again on every request until the next write.)
 */
export class ViewMemo<T> {
  #view: object | undefined;
  #young = new Map<string, T>();
  #old = new Map<string, T>();
  readonly #half: number;

  constructor(limit = 1024) {
    this.#half = Math.max(1, Math.floor(limit / 2));
  }

  /** The value of `question` over the data of `view`, built by `build` unless already known. */
  get(view: object, question: string, build: () => T): T {
    if (view !== this.#view) {
      this.#view = view;
      this.#young.clear();
      this.#old.clear();
    }
    const young = this.#young.get(question);
    if (young !== undefined) return young;
    const value = this.#old.get(question) ?? build();
    if (this.#young.size >= this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(question, value);
    return value;
  }
}
