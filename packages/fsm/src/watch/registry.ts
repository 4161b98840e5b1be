import type { WatchSet } from "./keys.js";

export type WaitOutcome = "changed" | "timeout";

class Waiter {
  done = false;
  constructor(
    readonly resolve: (outcome: WaitOutcome) => void,
    readonly keys: readonly string[],
    readonly signal: AbortSignal | undefined,
  ) {}
  onAbort: (() => void) | undefined;
}

/** One character of a watched KV key or prefix. Nodes exist only while someone watches through them. */
class TrieNode {
  readonly children = new Map<string, TrieNode>();
  exact: Set<Waiter> | undefined;
  prefix: Set<Waiter> | undefined;
  constructor(
    readonly parent: TrieNode | undefined,
    readonly char: string,
  ) {}

  isEmpty(): boolean {
    return this.children.size === 0 && !this.exact?.size && !this.prefix?.size;
  }
}

/**
 * Blocking-query waits. A change to KV key `k` walks the trie along `k` (so only watchers of `k` and of
 * its prefixes are touched); a change to a channel looks up that channel. The cost of an apply is bounded
 * by the key length and the number of waiters actually woken, never by the number waiting. Pure: the timeout
 * comes in as an AbortSignal.
 */
export class WatchRegistry {
  readonly #channels = new Map<string, Set<Waiter>>();
  readonly #root = new TrieNode(undefined, "");
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
    const woken: Waiter[] = [];
    for (const key of kvKeys) this.#collectKv(key, woken);
    for (const channel of channels) {
      const set = this.#channels.get(channel);
      if (set) for (const w of set) woken.push(w);
    }
    for (const w of woken) this.#finish(w, "changed");
  }

  /** Wake every waiter (the whole state was replaced, e.g. by a snapshot restore). */
  wakeAll(): void {
    const woken = new Set<Waiter>();
    for (const set of this.#channels.values()) for (const w of set) woken.add(w);
    const walk = (node: TrieNode) => {
      for (const w of node.exact ?? []) woken.add(w);
      for (const w of node.prefix ?? []) woken.add(w);
      for (const child of node.children.values()) walk(child);
    };
    walk(this.#root);
    for (const w of woken) this.#finish(w, "changed");
  }

  #collectKv(key: string, out: Waiter[]): void {
    let node: TrieNode | undefined = this.#root;
    if (node.prefix) for (const w of node.prefix) out.push(w);
    for (let i = 0; i < key.length; i++) {
      node = node.children.get(key[i]!);
      if (!node) return;
      if (node.prefix) for (const w of node.prefix) out.push(w);
    }
    if (node.exact) for (const w of node.exact) out.push(w);
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
    const tag = key[0];
    const body = key.slice(1);
    if (tag === "c") {
      let set = this.#channels.get(body);
      if (!set) {
        set = new Set();
        this.#channels.set(body, set);
      }
      set.add(waiter);
      return;
    }
    let node = this.#root;
    for (let i = 0; i < body.length; i++) {
      const ch = body[i]!;
      let next = node.children.get(ch);
      if (!next) {
        next = new TrieNode(node, ch);
        node.children.set(ch, next);
      }
      node = next;
    }
    if (tag === "k") {
      node.exact ??= new Set();
      node.exact.add(waiter);
    } else {
      node.prefix ??= new Set();
      node.prefix.add(waiter);
    }
  }

  #unregister(key: string, waiter: Waiter): void {
    const tag = key[0];
    const body = key.slice(1);
    if (tag === "c") {
      const set = this.#channels.get(body);
      set?.delete(waiter);
      if (set?.size === 0) this.#channels.delete(body);
      return;
    }
    let node: TrieNode | undefined = this.#root;
    for (let i = 0; i < body.length && node; i++) node = node.children.get(body[i]!);
    if (!node) return;
    (tag === "k" ? node.exact : node.prefix)?.delete(waiter);
    // Prune the now-unused path so the trie only holds what is watched.
    while (node.parent && node.isEmpty()) {
      node.parent.children.delete(node.char);
      node = node.parent;
    }
  }
}
