/**
 * Values shared per store view. When a change wakes thousands of blocking queries that asked the same
 * question, they all read the same view of the store: the first one reads (or encodes the answer) and the
 * rest take the same value. Keyed by the view object, not its index, because a snapshot restore can bring an
 * index back with other data. Everything is dropped when a newer view shows up; the size bound keeps
 * distinct questions between two writes from growing it. Values are shared: no one may change them.
 */
export class ViewMemo<T> {
  #view: object | undefined;
  readonly #values = new Map<string, T>();

  constructor(private readonly limit = 1024) {}

  /** The value of `question` over the data of `view`, built by `build` unless already known. */
  get(view: object, question: string, build: () => T): T {
    if (view !== this.#view) {
      this.#view = view;
      this.#values.clear();
    }
    let value = this.#values.get(question);
    if (value === undefined) {
      value = build();
      if (this.#values.size < this.limit) this.#values.set(question, value);
    }
    return value;
  }
}
