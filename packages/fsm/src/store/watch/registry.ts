import type { WatchSet } from "./keys.js";

export type WaitOutcome = "changed" | "timeout";

/** One registered watch: `wake` runs once, when what it covers changes, unless cancelled first. */
class Waiter implements Watcher {
  /** Unregistered: woken (perhaps still queued for delivery) or cancelled. */
  done = false;
  cancelled = false;
  constructor(
    readonly registry: WatchRegistry,
    readonly wake: () => void,
    readonly keys: readonly string[],
  ) {}

  cancel(): void {
    this.registry.cancel(this);
  }
}

/** A registered watch; `cancel()` drops it (a no-op once woken). */
export interface Watcher {
  cancel(): void;
}

export interface WatchRegistryOptions {
  /** Most wakes delivered per turn of the event loop; the rest wait for `defer`. */
  batchSize?: number;
  /** Runs `fn` on a later turn, after pending I/O (Node: setImmediate). */
  defer?: (fn: () => void) => void;
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
 *
 * Woken watchers are unregistered at once but their wakes are delivered `batchSize` per turn of the event
 * loop: when ten thousand queries wait on one key, the first answers (and the write's own reply) go out
 * within a batch's work instead of after everyone's, and the server keeps reading its sockets meanwhile.
 * Pure apart from the injected `defer`; timeouts belong to the caller (an AbortSignal, or `cancel()`).
 */
export class WatchRegistry {
  readonly #channels = new Groups();
  readonly #exact = new Groups();
  readonly #prefixes = new Groups();
  /** Distinct watched prefixes per prefix length, and those lengths ascending. */
  readonly #prefixCount = new Map<number, number>();
  #lengths: number[] = [];
  #waiting = 0;
  /** Woken waiters not yet told, in wake order, from `#next` on. */
  #queue: Waiter[] = [];
  #next = 0;
  #drainScheduled = false;
  readonly #batchSize: number;
  readonly #defer: (fn: () => void) => void;

  constructor(
    private readonly currentIndex: () => number,
    options: WatchRegistryOptions = {},
  ) {
    this.#batchSize = options.batchSize ?? 256;
    this.#defer = options.defer ?? setImmediate;
  }

  /** Number of pending waits (woken ones queued for delivery no longer count). */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Calls `wake` once when anything the watch set covers changes, and returns the handle to cancel it.
   * Returns undefined, without calling `wake`, when the watch set comes from a view older than the store
   * (something may have changed between the read and the watch): read again. `wake` runs inside an apply
   * or a later turn; it must only schedule work (resolve a promise), never throw.
   */
  listen(watch: WatchSet, wake: () => void): Watcher | undefined {
    if (watch.index < this.currentIndex()) return undefined;
    const waiter = new Waiter(this, wake, watch.keys);
    for (const key of watch.keys) this.#register(key, waiter);
    this.#waiting++;
    return waiter;
  }

  /** Drops a watcher from `listen`; it will not be woken. */
  cancel(watcher: Watcher): void {
    if (!(watcher instanceof Waiter) || watcher.registry !== this) return;
    watcher.cancelled = true;
    this.#unregisterWaiter(watcher);
  }

  /**
   * Resolves "changed" when anything the watch set covers changes, "timeout" when `signal` aborts. A watch
   * set from a view older than the store resolves "changed" at once (something may have changed between the
   * read and the wait); read and wait in the same tick for exact wakes.
   */
  wait(watch: WatchSet, signal?: AbortSignal): Promise<WaitOutcome> {
    if (signal?.aborted) return Promise.resolve("timeout");
    return new Promise<WaitOutcome>((resolve) => {
      let onAbort: (() => void) | undefined;
      const watcher = this.listen(watch, () => {
        if (onAbort) signal?.removeEventListener("abort", onAbort);
        resolve("changed");
      });
      if (!watcher) return resolve("changed");
      if (signal) {
        onAbort = () => {
          watcher.cancel();
          resolve("timeout");
        };
        signal.addEventListener("abort", onAbort, { once: true });
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
    if (woken) this.#wake(woken);
  }

  /** Wake every waiter (the whole state was replaced, e.g. by a snapshot restore). */
  wakeAll(): void {
    const woken = new Set<Waiter>();
    for (const groups of [this.#channels, this.#exact, this.#prefixes]) {
      for (const group of groups.all()) for (const w of group) woken.add(w);
    }
    this.#wake(woken);
  }

  #wake(woken: Iterable<Waiter>): void {
    for (const w of woken) if (this.#unregisterWaiter(w)) this.#queue.push(w);
    this.#deliver();
  }

  /** Tells up to a batch of queued waiters now and schedules the rest for later turns. */
  #deliver(): void {
    const end = Math.min(this.#queue.length, this.#next + this.#batchSize);
    while (this.#next < end) {
      const w = this.#queue[this.#next++]!;
      if (!w.cancelled) w.wake();
    }
    if (this.#next === this.#queue.length) {
      this.#queue = [];
      this.#next = 0;
    } else if (!this.#drainScheduled) {
      this.#drainScheduled = true;
      this.#defer(() => {
        this.#drainScheduled = false;
        this.#deliver();
      });
    }
  }

  /** Removes the waiter from every group; false if it was already gone. */
  #unregisterWaiter(waiter: Waiter): boolean {
    if (waiter.done) return false;
    waiter.done = true;
    this.#waiting--;
    for (const key of waiter.keys) this.#unregister(key, waiter);
    return true;
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
