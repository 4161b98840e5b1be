import type { AclTokenRecords } from "@cairn/acl";

/** `acl.down_policy`: what a client agent does when no server answers a token resolution. */
export type DownPolicy = "allow" | "deny" | "extend-cache" | "async-cache";

/** What is known of one token secret. */
export type TokenState =
  | { readonly kind: "found"; readonly records: AclTokenRecords }
  | { readonly kind: "not-found" }
  /** No server answered and nothing cached may stand in: the down policy decides. */
  | { readonly kind: "unresolved"; readonly decision: "allow" | "deny" };

export interface RemoteTokensOptions {
  /** Asks a server for a token's records; undefined: unknown or expired there. Rejects when none answers. */
  resolve: (secret: string) => Promise<AclTokenRecords | undefined>;
  /** `acl.token_ttl`: how long an answer is used before a server is asked again. */
  ttlMs: number;
  downPolicy: DownPolicy;
  /** Milliseconds, monotonic enough for TTLs. */
  clock: () => number;
  /** Told of each failed resolution (to log it). */
  onError?: (err: Error) => void;
  /** Most secrets remembered (oldest dropped first). Default 10,000. */
  maxEntries?: number;
}

interface Entry {
  readonly state: TokenState;
  readonly at: number;
}

/**
 * A client agent's knowledge of tokens, as Consul's client ACL resolver keeps it: each secret's answer from
 * a server, used for `ttlMs`, then asked for again. When no server answers, the down policy applies:
 * `allow` or `deny` everything, `extend-cache` keeps using what was cached (deny without it), and
 * `async-cache` does the same but answers from the cache at once while it refreshes in the background.
 * Resolution is asynchronous and authorization is not: `prepare` a request's secret, then read its `state`.
 */
export class RemoteTokens {
  private readonly entries = new Map<string, Entry>();
  /** Down-policy decisions for secrets no server could resolve, until the next `prepare` of each. */
  private readonly unresolved = new Map<string, TokenState>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly maxEntries: number;

  constructor(private readonly o: RemoteTokensOptions) {
    this.maxEntries = o.maxEntries ?? 10_000;
  }

  /** Makes `state(secret)` current: resolves through a server unless a fresh answer is cached. */
  prepare(secret: string): Promise<void> {
    const entry = this.entries.get(secret);
    if (entry !== undefined && this.o.clock() - entry.at < this.o.ttlMs) return Promise.resolve();
    const refresh = this.refresh(secret);
    // async-cache: a stale answer serves now; the refresh replaces it when it comes.
    if (entry !== undefined && this.o.downPolicy === "async-cache") return Promise.resolve();
    return refresh;
  }

  /** What is known of `secret`; undefined when it was never prepared. */
  state(secret: string): TokenState | undefined {
    return this.unresolved.get(secret) ?? this.entries.get(secret)?.state;
  }

  private refresh(secret: string): Promise<void> {
    let pending = this.pending.get(secret);
    if (pending === undefined) {
      pending = this.fetch(secret).finally(() => this.pending.delete(secret));
      this.pending.set(secret, pending);
    }
    return pending;
  }

  private async fetch(secret: string): Promise<void> {
    let records: AclTokenRecords | undefined;
    try {
      records = await this.o.resolve(secret);
    } catch (err) {
      this.o.onError?.(err as Error);
      this.down(secret);
      return;
    }
    this.unresolved.delete(secret);
    this.remember(secret, records === undefined ? { kind: "not-found" } : { kind: "found", records });
  }

  private down(secret: string): void {
    const policy = this.o.downPolicy;
    const cached = this.entries.has(secret);
    if ((policy === "extend-cache" || policy === "async-cache") && cached) {
      this.unresolved.delete(secret);
      return;
    }
    if (!cached && this.unresolved.size >= this.maxEntries) this.unresolved.clear();
    this.unresolved.set(secret, { kind: "unresolved", decision: policy === "allow" ? "allow" : "deny" });
  }

  private remember(secret: string, state: TokenState): void {
    this.entries.delete(secret);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(secret, { state, at: this.o.clock() });
  }
}
