import { type AclTokenRecords, Authorizer, type DefaultPolicy } from "@cairn/acl";
import { HttpError } from "@cairn/api";

/** `acl.down_policy`: what a client agent does when no server answers a token resolution. */
export type DownPolicy = "allow" | "deny" | "extend-cache" | "async-cache";

/** What is known of one token secret. */
export type TokenState =
  | { readonly kind: "found"; readonly records: AclTokenRecords }
  | { readonly kind: "not-found" }
  /**
   * No server answered and nothing cached may stand in: the down policy decides (`default`: the agent's
   * default policy, as Consul's extend-cache and async-cache do for a token they never cached).
   */
  | { readonly kind: "unresolved"; readonly decision: "allow" | "deny" | "default" };

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
  /** Most tokens cached (oldest dropped first). Default 1,024, as a Consul client agent. */
  maxEntries?: number;
}

interface Entry {
  readonly state: TokenState;
  readonly at: number;
}

/**
 * A client agent's knowledge of tokens, as Consul's client ACL resolver keeps it: each token a server
 * resolved, used for `ttlMs`, then asked for again. An unknown secret is not remembered: it is asked for
 * each time. When no server answers, the down policy applies: `allow` or `deny` everything, `extend-cache`
 * keeps using what was cached (the default policy without it), and `async-cache` does the same but answers
 * from the cache at once while it refreshes in the background.
 * Resolution is asynchronous and authorization is not: `prepare` a request's secret, then read its `state`.
 */
export class RemoteTokens {
  private readonly cached = new Map<string, Entry>();
  /** The last answer for secrets with nothing cached to use (unknown, or unresolved), until asked again. */
  private readonly latest = new Map<string, TokenState>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly maxEntries: number;

  constructor(private readonly o: RemoteTokensOptions) {
    this.maxEntries = o.maxEntries ?? 1024;
  }

  /** Makes `state(secret)` current: resolves through a server unless a fresh answer is cached. */
  prepare(secret: string): Promise<void> {
    const entry = this.cached.get(secret);
    if (entry !== undefined && this.o.clock() - entry.at < this.o.ttlMs) return Promise.resolve();
    const refresh = this.refresh(secret);
    // async-cache: a stale answer serves now; the refresh replaces it when it comes.
    if (entry !== undefined && this.o.downPolicy === "async-cache") return Promise.resolve();
    return refresh;
  }

  /** What is known of `secret`; undefined when it was never prepared. */
  state(secret: string): TokenState | undefined {
    return this.latest.get(secret) ?? this.cached.get(secret)?.state;
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
    if (records === undefined) {
      this.cached.delete(secret);
      this.answer(secret, { kind: "not-found" });
      return;
    }
    this.latest.delete(secret);
    this.cached.delete(secret);
    if (this.cached.size >= this.maxEntries) {
      const oldest = this.cached.keys().next();
      if (!oldest.done) this.cached.delete(oldest.value);
    }
    this.cached.set(secret, { state: { kind: "found", records }, at: this.o.clock() });
  }

  private down(secret: string): void {
    const policy = this.o.downPolicy;
    if (policy === "allow" || policy === "deny") {
      this.answer(secret, { kind: "unresolved", decision: policy });
    } else if (this.cached.has(secret)) {
      this.latest.delete(secret);
    } else {
      this.answer(secret, { kind: "unresolved", decision: "default" });
    }
  }

  private answer(secret: string, state: TokenState): void {
    if (!this.latest.has(secret) && this.latest.size >= this.maxEntries) this.latest.clear();
    this.latest.set(secret, state);
  }
}

const DENY_ALL = new Authorizer([], "deny");
const ALLOW_ALL = new Authorizer([], "allow");

/**
 * The authorizer a known state stands for: a found token's own (`found`), 403 `ACL not found` for one the
 * server said does not exist, and the down policy's decision (`default`: `defaultPolicy`) for one no server
 * resolved.
 */
export function stateAuthorizer(
  state: TokenState,
  defaultPolicy: DefaultPolicy,
  found: (records: AclTokenRecords) => Authorizer,
): Authorizer {
  if (state.kind === "found") return found(state.records);
  if (state.kind === "not-found") throw new HttpError(403, "ACL not found");
  const decision = state.decision === "default" ? defaultPolicy : state.decision;
  return decision === "allow" ? ALLOW_ALL : DENY_ALL;
}
