/**
 * The pending browser logins of the OIDC flow, kept in memory on the server that issued the auth URL
 * (as Consul's go-sso keeps them): each state is used once and expires after ten minutes. The number
 * pending is bounded so a flood of auth-url requests cannot grow memory without limit; the oldest go
 * first.
 */

export interface PendingLogin {
  readonly methodName: string;
  readonly methodNamespace: string;
  readonly redirectUri: string;
  readonly nonce: string;
  /** PKCE code_verifier; empty when the method turned PKCE off. */
  readonly codeVerifier: string;
  readonly clientNonce: string;
  readonly meta: Readonly<Record<string, string>>;
}

export const OIDC_STATE_TTL_MS = 10 * 60_000;
const MAX_PENDING = 10_000;

interface Entry {
  readonly login: PendingLogin;
  readonly expiresAt: number;
}

export class OidcStates {
  // Insertion order is expiry order: every entry lives the same TTL.
  readonly #pending = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = OIDC_STATE_TTL_MS,
    private readonly max = MAX_PENDING,
  ) {}

  #prune(now: number): void {
    for (const [state, entry] of this.#pending) {
      if (entry.expiresAt > now && this.#pending.size < this.max) break;
      this.#pending.delete(state);
    }
  }

  add(state: string, login: PendingLogin, now: number): void {
    this.#prune(now);
    this.#pending.set(state, { login, expiresAt: now + this.ttlMs });
  }

  /** The login `state` names, once: a state is consumed whatever the callback's outcome. */
  take(state: string, now: number): PendingLogin | undefined {
    const entry = this.#pending.get(state);
    this.#pending.delete(state);
    return entry && entry.expiresAt > now ? entry.login : undefined;
  }

  get size(): number {
    return this.#pending.size;
  }
}
