import type { WatchSet } from "./keys.js";

export type WaitOutcome = "changed" | "timeout";

class Waiter {
  done = false;
  onAbort: (() => void) | undefined;
  constructor(
    readonly resolve: (outcome: WaitOutcome) => void,
    readonly keys: readonly string[],
    readonly signal: AbortSignal | undefined,
  ) {}
}

/** Waiters grouped by a string; empty groups are dropped so memory follows what is watched now. */
class Groups {
  readonly #groups = new Map<string, Set<Waiter>>();

  get(key: string): Set<Waiter> | undefined {
    return this.#groups.get(key);
  }

  /** True when this created the group. */
  add(key: string, waiter: Waiter): boolean {
    const group = this.#groups.get(key);
    if (group) {
      group.add(waiter);
      return false;
    }
    this.#groups.set(key, new Set([waiter]));
    return true;
  }

  /** True when this emptied (and dropped) the group. */
  remove(key: string, waiter: Waiter): boolean {
    const group = this.#groups.get(key);
    if (!group?.delete(waiter) || group.size > 0) return false;
    this.#groups.delete(key);
    return true;
  }

  all(): IterableIterator<Set<Waiter>> {
    return this.#groups.values();
  }
}

/**
 * Blocking-query waits. A change to KV key `k` looks up the exact watchers of `k`, then for each distinct
 * length of a watched prefix the watchers of `k`'s prefix of that length; a change to a channel looks up that
 * channel. So an apply costs a few map lookups plus the waiters it actually wakes, never the number waiting.
 * Pure: the timeout comes in as an AbortSignal.
 */
export class WatchRegistry {
  readonly #channels = new Groups();
  readonly #exact = new Groups();
  readonly #prefixes = new Groups();
  /** Distinct watched prefixes per prefix length, and those lengths ascending. */
  readonly #prefixCount = new Map<number, number>();
  #lengths: number[] = [];
  #waiting = 0;

  constructor(private readonly currentIndex: () => number) {}

  /** Number of pending waits. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Resolves "changed" when anything the watch set covers changes, "timeout" when `signal` aborts. A watch
   * set from a view older than the store resolves "changed" at once (something may have changed between the
   * read and the wait); read and wait in the same tick for exact wakes.
   */
  wait(watch: WatchSet, signal?: AbortSignal): Promise<WaitOutcome> {
    if (signal?.aborted) return Promise.resolve("timeout");
    if (watch.index < this.currentIndex()) return Promise.resolve("changed");
    return new Promise<WaitOutcome>((resolve) => {
      const waiter = new Waiter(resolve, watch.keys, signal);
      for (const key of watch.keys) this.#register(key, waiter);
      this.#waiting++;
      if (signal) {
        waiter.onAbort = () => this.#finish(waiter, "timeout");
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
    });
  }

  /** Wake the waiters of changed KV keys (composite `ns \0 key`) and of changed channels. */
  notify(kvKeys: readonly string[], channels: Iterable<string>): void {
    if (this.#waiting === 0) return;
    let woken: Waiter[] | undefined;
    const collect = (group: Set<Waiter> | undefined) => {
      if (!group) return;
      woken ??= [];
      for (const w of group) woken.push(w);
    };
    for (const key of kvKeys) {
      collect(this.#exact.get(key));
      for (const length of this.#lengths) {
        if (length > key.length) break;
        collect(this.#prefixes.get(length === key.length ? key : key.slice(0, length)));
      }
    }
    for (const channel of channels) collect(this.#channels.get(channel));
    if (woken) for (const w of woken) this.#finish(w, "changed");
  }

  /** Wake every waiter (the whole state was replaced, e.g. by a snapshot restore). */
  wakeAll(): void {
    const woken = new Set<Waiter>();
    for (const groups of [this.#channels, this.#exact, this.#prefixes]) {
      for (const group of groups.all()) for (const w of group) woken.add(w);
    }
    for (const w of woken) this.#finish(w, "changed");
  }

  #finish(waiter: Waiter, outcome: WaitOutcome): void {
    if (waiter.done) return;
    waiter.done = true;
    this.#waiting--;
    for (const key of waiter.keys) this.#unregister(key, waiter);
    if (waiter.onAbort) waiter.signal?.removeEventListener("abort", waiter.onAbort);
    waiter.resolve(outcome);
  }

  #register(key: string, waiter: Waiter): void {
    const body = key.slice(1);
    switch (key[0]) {
      case "c":
        this.#channels.add(body, waiter);
        return;
      case "k":
        this.#exact.add(body, waiter);
        return;
      default:
        if (this.#prefixes.add(body, waiter)) this.#countPrefix(body.length, 1);
    }
  }

  #unregister(key: string, waiter: Waiter): void {
    const body = key.slice(1);
    switch (key[0]) {
      case "c":
        this.#channels.remove(body, waiter);
        return;
      case "k":
        this.#exact.remove(body, waiter);
        return;
      default:
        if (this.#prefixes.remove(body, waiter)) this.#countPrefix(body.length, -1);
    }
  }

  #countPrefix(length: number, delta: 1 | -1): void {
    const count = (this.#prefixCount.get(length) ?? 0) + delta;
    if (count > 0) this.#prefixCount.set(length, count);
    else this.#prefixCount.delete(length);
    if (count === 0 || (count === 1 && delta === 1)) {
      this.#lengths = [...this.#prefixCount.keys()].sort((a, b) => a - b);
    }
  }
}
