import { joinKey } from "../store/keys.js";
import { channelRead, type Read } from "../store/read.js";
import type { Tables } from "../store/tables.js";
import type { AclPolicy, AclRole, AclToken } from "./records.js";
import { AclChannels } from "./tables.js";
import { bootstrapIndex, tokensLinking } from "./writes.js";

export interface AclTokenFilter {
  /** A namespace, or `*` for all. */
  readonly ns: string;
  readonly policy?: string;
  readonly role?: string;
  readonly authMethod?: string;
  readonly authMethodNs?: string;
}

/**
 * Reads of the ACL tables at one view. Single-record lookups without blocking-query bookkeeping (`token`,
 * `policy`, ...) serve token resolution on the request path; the `Read` forms serve the HTTP endpoints.
 */
export class AclReads {
  constructor(
    protected readonly t: Tables,
    protected readonly viewIndex: number,
  ) {}

  #read<T>(value: T, index: number, channel: string): Read<T> {
    return channelRead({ t: this.t, index: this.viewIndex }, value, index, channel);
  }

  /** Highest change of anything that can alter a token's resolution. */
  get index(): number {
    const i = this.t.indexes;
    return Math.max(i.aclTokens, i.aclPolicies, i.aclRoles, i.namespaces);
  }

  get bootstrapIndex(): number | undefined {
    return bootstrapIndex(this.t);
  }

  token(accessor: string): AclToken | undefined {
    return this.t.aclTokens.get(accessor);
  }

  tokenBySecret(secret: string): AclToken | undefined {
    const accessor = this.t.aclTokenSecrets.get(secret);
    return accessor === undefined ? undefined : this.t.aclTokens.get(accessor);
  }

  policy(id: string): AclPolicy | undefined {
    return this.t.aclPolicies.get(id);
  }

  policyByName(name: string, ns: string): AclPolicy | undefined {
    const id = this.t.aclPolicyNames.get(joinKey(ns, name.toLowerCase()));
    return id === undefined ? undefined : this.t.aclPolicies.get(id);
  }

  role(id: string): AclRole | undefined {
    return this.t.aclRoles.get(id);
  }

  roleByName(name: string, ns: string): AclRole | undefined {
    const id = this.t.aclRoleNames.get(joinKey(ns, name.toLowerCase()));
    return id === undefined ? undefined : this.t.aclRoles.get(id);
  }

  /** Tokens expired at `nowIso` (RFC 3339 strings in UTC order as time does). */
  expiredTokens(nowMs: number, limit: number): string[] {
    const out: string[] = [];
    const cutoff = new Date(nowMs).toISOString();
    this.t.aclTokenExpiry.forRange("", cutoff, false, (k) => {
      if (out.length < limit) out.push(k.slice(k.indexOf("\u0000") + 1));
    });
    return out;
  }

  readToken(accessor: string): Read<AclToken | undefined> {
    return this.#read(this.t.aclTokens.get(accessor), this.t.indexes.aclTokens, AclChannels.tokens);
  }

  readTokenBySecret(secret: string): Read<AclToken | undefined> {
    return this.#read(this.tokenBySecret(secret), this.t.indexes.aclTokens, AclChannels.tokens);
  }

  readTokens(filter: AclTokenFilter): Read<AclToken[]> {
    const t = this.t;
    let candidates: Iterable<AclToken>;
    if (filter.policy) candidates = this.#byAccessor(tokensLinking(t, "p", filter.policy));
    else if (filter.role) candidates = this.#byAccessor(tokensLinking(t, "r", filter.role));
    else if (filter.authMethod) {
      // By the namespace of the auth method (not of the token), defaulting to the request's.
      const methodNs = filter.authMethodNs || filter.ns;
      candidates =
        methodNs === "*"
          ? t.aclTokens.values()
          : this.#byAccessor(tokensLinking(t, "m", methodNs, filter.authMethod));
    } else candidates = t.aclTokens.values();
    const out: AclToken[] = [];
    for (const tok of candidates) {
      if (filter.ns !== "*" && tok.Namespace !== filter.ns) continue;
      if (filter.role && !tok.Roles.some((l) => l.ID === filter.role)) continue;
      if (filter.authMethod && tok.AuthMethod !== filter.authMethod) continue;
      out.push(tok);
    }
    return this.#read(out, t.indexes.aclTokens, AclChannels.tokens);
  }

  readPolicy(id: string): Read<AclPolicy | undefined> {
    return this.#read(this.t.aclPolicies.get(id), this.t.indexes.aclPolicies, AclChannels.policies);
  }

  readPolicyByName(name: string, ns: string): Read<AclPolicy | undefined> {
    return this.#read(this.policyByName(name, ns), this.t.indexes.aclPolicies, AclChannels.policies);
  }

  readPolicies(ns: string): Read<AclPolicy[]> {
    const out = [...this.t.aclPolicies.values()].filter((p) => ns === "*" || p.Namespace === ns);
    return this.#read(out, this.t.indexes.aclPolicies, AclChannels.policies);
  }

  readRole(id: string): Read<AclRole | undefined> {
    return this.#read(this.t.aclRoles.get(id), this.t.indexes.aclRoles, AclChannels.roles);
  }

  readRoleByName(name: string, ns: string): Read<AclRole | undefined> {
    return this.#read(this.roleByName(name, ns), this.t.indexes.aclRoles, AclChannels.roles);
  }

  readRoles(ns: string, policy?: string): Read<AclRole[]> {
    const out = [...this.t.aclRoles.values()].filter(
      (r) => (ns === "*" || r.Namespace === ns) && (!policy || r.Policies.some((l) => l.ID === policy)),
    );
    return this.#read(out, this.t.indexes.aclRoles, AclChannels.roles);
  }

  *#byAccessor(accessors: readonly string[]): Generator<AclToken> {
    for (const a of accessors) {
      const tok = this.t.aclTokens.get(a);
      if (tok) yield tok;
    }
  }
}
