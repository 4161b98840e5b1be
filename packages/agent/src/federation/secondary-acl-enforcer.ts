import {
  AclNotFoundError,
  type AclTokenRecord,
  type AclTokenRecords,
  type Authorizer,
  type DefaultPolicy,
  RulesCache,
  recordTokenResolution,
  resolveSecret,
} from "@cairn/acl";
import {
  AclEnforcer,
  type AclEnforcerOptions,
  HttpError,
  type StateReader,
  storeAclLookups,
} from "@cairn/api";
import { type RemoteTokens, stateAuthorizer } from "../client/acl/remote-tokens.js";

export interface SecondaryAclEnforcerOptions extends AclEnforcerOptions {
  /** Tokens resolved through the primary, kept for `acl.token_ttl`, `acl.down_policy` when it is cut off. */
  readonly tokens: RemoteTokens;
  readonly defaultPolicy: DefaultPolicy;
}

interface Resolved {
  readonly authorizer: Authorizer;
  readonly expiresAt: number | undefined;
  /** The ACL index of the policies and roles it was resolved over. */
  readonly aclIndex: number;
}

/**
 * A secondary datacenter's servers without token replication (Consul's default): tokens held here (local
 * ones, the management and anonymous tokens) resolve here as in any server; any other token is asked of the
 * primary once per `acl.token_ttl`, exactly as a client agent asks a server (the same RemoteTokens, down
 * policy included), and its policies and roles are read from the replicated ones. `prepare` each request's
 * secret before its route runs: authorization itself stays synchronous.
 */
export class SecondaryAclEnforcer extends AclEnforcer {
  private readonly store: StateReader;
  private readonly lookups;
  private readonly rules = new RulesCache();
  private readonly resolved = new WeakMap<AclTokenRecords, Resolved>();

  constructor(private readonly o: SecondaryAclEnforcerOptions) {
    super(o);
    this.store = o.store;
    this.lookups = storeAclLookups(o.store);
  }

  /** Resolves through the primary the secret a request acts with, unless this datacenter holds it. */
  override prepare(secret: string): Promise<void> {
    const effective = this.effectiveSecret(secret);
    return this.isHere(effective) ? Promise.resolve() : this.o.tokens.prepare(effective);
  }

  override forToken(secret: string): Authorizer {
    const effective = this.effectiveSecret(secret);
    const state = this.isHere(effective) ? undefined : this.o.tokens.state(effective);
    if (state === undefined) return super.forToken(secret);
    return stateAuthorizer(state, this.o.defaultPolicy, (records) => this.remote(effective, records));
  }

  override tokenNamespace(secret: string): string | undefined {
    const effective = this.effectiveSecret(secret);
    const state = this.isHere(effective) ? undefined : this.o.tokens.state(effective);
    if (state === undefined) return super.tokenNamespace(secret);
    return state.kind === "found" ? state.records.token.Namespace || undefined : undefined;
  }

  /**
   * For a client agent of this datacenter: the records of a token this datacenter does not hold (the
   * primary's token, this datacenter's policies and roles), null when the primary says it does not exist,
   * undefined when it is held here. Rejects when the primary was not reached and nothing is cached, so that
   * the client applies its own down policy.
   */
  async remoteRecords(secret: string): Promise<AclTokenRecords | null | undefined> {
    if (this.isHere(secret)) return undefined;
    await this.o.tokens.prepare(secret);
    const state = this.o.tokens.state(secret);
    if (state === undefined || state.kind === "not-found") return null;
    if (state.kind === "unresolved") throw new Error("the primary datacenter could not resolve this token");
    try {
      return recordTokenResolution(secret, this.lookupsWith(secret, state.records.token), this.context())
        .records;
    } catch (err) {
      if (err instanceof AclNotFoundError) return null;
      throw err;
    }
  }

  private context() {
    const now = this.o.clock?.() ?? Date.now();
    return { now, datacenter: this.o.datacenter, defaultPolicy: this.o.defaultPolicy, rules: this.rules };
  }

  private lookupsWith(secret: string, token: AclTokenRecord) {
    return { ...this.lookups, tokenBySecret: (s: string) => (s === secret ? token : undefined) };
  }

  private isHere(secret: string): boolean {
    return this.store.view().acl().tokenBySecret(secret) !== undefined;
  }

  /** The primary's token over this datacenter's policies and roles, again whenever those change. */
  private remote(secret: string, records: AclTokenRecords): Authorizer {
    const ctx = this.context();
    const aclIndex = this.store.aclIndex;
    let hit = this.resolved.get(records);
    if (hit === undefined || hit.aclIndex !== aclIndex) {
      try {
        const { authorizer, expiresAt } = resolveSecret(secret, this.lookupsWith(secret, records.token), ctx);
        hit = { authorizer, expiresAt, aclIndex };
      } catch (err) {
        if (err instanceof AclNotFoundError) throw new HttpError(403, "ACL not found");
        throw err;
      }
      this.resolved.set(records, hit);
    }
    if (hit.expiresAt !== undefined && ctx.now >= hit.expiresAt) throw new HttpError(403, "ACL not found");
    return hit.authorizer;
  }
}
