import {
  type Authorizer as AclAuthorizer,
  AclNotFoundError,
  type AclSecretLookups,
  type AclTokenRecord,
  AuthorizerCache,
  type DefaultPolicy,
  TokenAuthorizer,
} from "@cairn/acl";
import { type AclToken, ANONYMOUS_TOKEN_ACCESSOR, ANONYMOUS_TOKEN_SECRET } from "@cairn/fsm";
import type { AclAccess, AclDecision, AclResourceType, Authorizer } from "../authorizer.js";
import { HttpError } from "../http/errors.js";
import type { StateReader } from "../state-reader.js";
import { legacyRulesToModern } from "./legacy-rules.js";

export interface AclEnforcerOptions {
  readonly store: StateReader;
  readonly datacenter: string;
  /** `primary_datacenter` (defaults to `datacenter`): the replication status's SourceDatacenter. */
  readonly primaryDatacenter?: string;
  readonly defaultPolicy: DefaultPolicy;
  /**
   * The agent's `default` token (`acl.tokens.default`, or as `/v1/agent/token/default` last set it): used for
   * requests that carry no token, instead of anonymous (as Consul). Read per request, so a new one applies
   * at once.
   */
  readonly defaultToken?: () => string;
  /** Milliseconds since the epoch. */
  readonly clock?: () => number;
  /**
   * A server's catch-up with the leader (a default read's barrier), run before resolving a secret this
   * server does not hold: it may be a token the leader committed and this server has not applied yet.
   */
  readonly catchUp?: () => Promise<unknown>;
}

/**
 * ACLs on: the HTTP seam's Authorizer over the state store's ACL tables, resolving each secret once per
 * change of those tables. An unknown or expired secret is 403 `ACL not found`.
 */
export class AclEnforcer implements Authorizer {
  readonly #tokens: TokenAuthorizer;
  readonly #store: StateReader;
  readonly #defaultToken: () => string;
  readonly #catchUp: (() => Promise<unknown>) | undefined;
  readonly primaryDatacenter: string;
  readonly #namespaces = new Map<string, string | undefined>();
  #namespacesAt = -1;

  constructor(options: AclEnforcerOptions) {
    this.primaryDatacenter = options.primaryDatacenter || options.datacenter;
    const store = options.store;
    this.#store = store;
    this.#defaultToken = options.defaultToken ?? (() => "");
    this.#catchUp = options.catchUp;
    // Resolution reads the newest view; the cache key (the ACL index) is read from the same store.
    const lookups = storeAclLookups(store);
    this.#tokens = new TokenAuthorizer({
      cache: new AuthorizerCache({ clock: options.clock ?? Date.now }),
      lookups,
      aclIndex: () => store.aclIndex,
      datacenter: options.datacenter,
      defaultPolicy: options.defaultPolicy,
      anonymousSecret: ANONYMOUS_TOKEN_SECRET,
    });
  }

  /** The resolved authorizer of a request's secret ("" = the default or anonymous token). */
  forToken(secret: string): AclAuthorizer {
    try {
      return this.#tokens.forToken(this.effectiveSecret(secret));
    } catch (err) {
      if (err instanceof AclNotFoundError) throw new HttpError(403, "ACL not found");
      throw err;
    }
  }

  /**
   * Run before a request is answered. Consul resolves the token of a request that is not `?stale` on the
   * leader (the request is forwarded there first), so a token made a moment ago through another server
   * works at once. This server resolves on its own state instead, which may lag the leader by the entry
   * that made the token: an unknown secret first waits for the catch-up. A `?stale` request resolves on
   * what this server holds, as in Consul. Undefined when there is nothing to wait for.
   */
  prepare(secret: string, url: string): Promise<void> | undefined {
    const catchUp = this.#catchUp;
    if (catchUp === undefined || STALE.test(url)) return undefined;
    if (this.#store.view().acl().tokenBySecret(this.effectiveSecret(secret)) !== undefined) return undefined;
    // No leader to catch up with: the request is answered from this server's state, as without the wait.
    return catchUp().then(
      () => undefined,
      () => undefined,
    );
  }

  authorize(token: string, ns: string, type: AclResourceType, name: string, access: AclAccess): AclDecision {
    return this.forToken(token).authorize(ns, type, name, access);
  }

  /** The secret a request without a token acts with. */
  effectiveSecret(secret: string): string {
    return secret === "" ? this.#defaultToken() || ANONYMOUS_TOKEN_SECRET : secret;
  }

  /**
   * The namespace a request inherits from its token (spec 1: when neither ns nor the header names one).
   * Remembered per secret while the ACL tables are unchanged: most requests name no namespace.
   */
  tokenNamespace(secret: string): string | undefined {
    const index = this.#store.aclIndex;
    if (index !== this.#namespacesAt) {
      this.#namespaces.clear();
      this.#namespacesAt = index;
    }
    const effective = this.effectiveSecret(secret);
    if (this.#namespaces.has(effective)) return this.#namespaces.get(effective);
    const ns = this.#store.view().acl().tokenBySecret(effective)?.Namespace;
    if (this.#namespaces.size >= MAX_REMEMBERED) this.#namespaces.clear();
    this.#namespaces.set(effective, ns);
    return ns;
  }
}

const MAX_REMEMBERED = 10_000;

/** `stale` among a URL's query parameters. */
const STALE = /[?&]stale(?:[=&]|$)/;

/**
 * The anonymous token before the leader has made it (ACLs just turned on, the first leader still setting
 * them up): no policies, so the default policy decides, as Consul's servers synthesize it. Without it, a
 * request with no token answered 403 `ACL not found` for a moment after a leader was elected.
 */
const EARLY_ANONYMOUS: AclTokenRecord = {
  AccessorID: ANONYMOUS_TOKEN_ACCESSOR,
  SecretID: ANONYMOUS_TOKEN_SECRET,
};

/** Link IDs of ID-based tokens' own rules, enforced as a policy embedded in the token. */
const EMBEDDED = "legacy-rules:";

function withEmbeddedRules(token: AclToken | undefined): AclToken | undefined {
  if (!token || token.Rules === "") return token;
  return { ...token, Policies: [...token.Policies, { ID: EMBEDDED + token.AccessorID }] };
}

function embeddedPolicy(token: AclToken | undefined) {
  if (!token || token.Rules === "") return undefined;
  return {
    ID: EMBEDDED + token.AccessorID,
    Rules: legacyRulesToModern(token.Rules),
    ModifyIndex: token.ModifyIndex,
  };
}

/**
 * The ACL records of a state store as token resolution reads them (always from the newest view), ID-based
 * tokens' own rules included as an embedded policy: what the enforcer resolves over, and what a server
 * records for a client agent that resolves tokens itself.
 */
export function storeAclLookups(store: StateReader): AclSecretLookups {
  return {
    tokenBySecret: (secret) =>
      withEmbeddedRules(store.view().acl().tokenBySecret(secret)) ??
      (secret === ANONYMOUS_TOKEN_SECRET ? EARLY_ANONYMOUS : undefined),
    policy: (id) =>
      id.startsWith(EMBEDDED)
        ? embeddedPolicy(store.view().acl().token(id.slice(EMBEDDED.length)))
        : store.view().acl().policy(id),
    role: (id) => store.view().acl().role(id),
    namespaceDefaults: (ns) => store.view().acl().namespace(ns)?.ACLs,
  };
}
