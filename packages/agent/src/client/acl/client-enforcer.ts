import {
  AclNotFoundError,
  type AclTokenRecords,
  Authorizer,
  CompiledRules,
  DEFAULT_NAMESPACE,
  type DefaultPolicy,
  parseRules,
  RulesCache,
  recordedLookups,
  resolveSecret,
} from "@cairn/acl";
import { AclEnforcer, HttpError } from "@cairn/api";
import { StateStore } from "@cairn/fsm";
import { type RemoteTokens, stateAuthorizer } from "./remote-tokens.js";

export interface ClientAclEnforcerOptions {
  tokens: RemoteTokens;
  datacenter: string;
  primaryDatacenter?: string;
  /** The client's own `acl.default_policy`, as Consul's client agents apply theirs. */
  defaultPolicy: DefaultPolicy;
  /** The agent's `default` token, for requests that carry none. */
  defaultToken: () => string;
  /** `acl.tokens.agent_recovery`: resolved here, without a server. Empty: none. */
  recoveryToken: () => string;
  /** This agent's node (the recovery token's rules name it). */
  nodeName: string;
  /** Milliseconds since the epoch (token expiry). */
  clock: () => number;
}

const DENY_ALL = new Authorizer([], "deny");

/**
 * A client agent's ACL enforcer: the server's enforcer in shape (the API's request context and routes ask
 * it the same questions), answering from tokens resolved through a server (`RemoteTokens`) instead of a
 * state store. A client keeps no ACL tables, so the store it hands the base class stays empty: only the
 * answers below are ever used, the client's routes (/v1/agent, /v1/event) asking nothing else.
 * `prepare` each request's secret before its route runs; authorization itself stays synchronous.
 */
export class ClientAclEnforcer extends AclEnforcer {
  private readonly rules = new RulesCache();
  private readonly resolved = new WeakMap<AclTokenRecords, { authorizer: Authorizer; expiresAt?: number }>();
  private readonly recovery: Authorizer;

  constructor(private readonly o: ClientAclEnforcerOptions) {
    super({
      store: new StateStore(),
      datacenter: o.datacenter,
      ...(o.primaryDatacenter ? { primaryDatacenter: o.primaryDatacenter } : {}),
      defaultPolicy: o.defaultPolicy,
      defaultToken: o.defaultToken,
      clock: o.clock,
    });
    this.recovery = recoveryAuthorizer(o.nodeName);
  }

  /** Resolves the secret a request acts with (its own, else the default token, else anonymous). */
  override prepare(secret: string): Promise<void> {
    const effective = this.effectiveSecret(secret);
    return this.isRecovery(effective) ? Promise.resolve() : this.o.tokens.prepare(effective);
  }

  override forToken(secret: string): Authorizer {
    const effective = this.effectiveSecret(secret);
    if (this.isRecovery(effective)) return this.recovery;
    const state = this.o.tokens.state(effective);
    if (state === undefined) return DENY_ALL;
    return stateAuthorizer(state, this.o.defaultPolicy, (records) => this.authorizerOf(effective, records));
  }

  override tokenNamespace(secret: string): string | undefined {
    const state = this.o.tokens.state(this.effectiveSecret(secret));
    return state?.kind === "found" ? state.records.token.Namespace || undefined : undefined;
  }

  private isRecovery(secret: string): boolean {
    const recovery = this.o.recoveryToken();
    return recovery !== "" && secret === recovery;
  }

  /** Resolved once per answer from a server; an expired token is refused as the server would. */
  private authorizerOf(secret: string, records: AclTokenRecords): Authorizer {
    let hit = this.resolved.get(records);
    if (hit === undefined) {
      try {
        const ctx = {
          now: this.o.clock(),
          datacenter: this.o.datacenter,
          defaultPolicy: this.o.defaultPolicy,
        };
        const { authorizer, expiresAt } = resolveSecret(secret, recordedLookups(records), {
          ...ctx,
          rules: this.rules,
        });
        hit = expiresAt === undefined ? { authorizer } : { authorizer, expiresAt };
      } catch (err) {
        if (err instanceof AclNotFoundError) throw new HttpError(403, "ACL not found");
        throw err;
      }
      this.resolved.set(records, hit);
    }
    if (hit.expiresAt !== undefined && this.o.clock() >= hit.expiresAt)
      throw new HttpError(403, "ACL not found");
    return hit.authorizer;
  }
}

/**
 * The agent recovery token's rights, as Consul grants them without asking a server (for operators during an
 * outage): write on this agent, read on every node, nothing else.
 */
function recoveryAuthorizer(nodeName: string): Authorizer {
  const text = `agent ${JSON.stringify(nodeName)} { policy = "write" }\nnode_prefix "" { policy = "read" }`;
  const rules = parseRules(text, { namespace: DEFAULT_NAMESPACE }).rules;
  return new Authorizer([new CompiledRules([{ namespace: DEFAULT_NAMESPACE, rules }])], "deny");
}
