import { AclEnforcer } from "@cairn/api";
import type { StateStore } from "@cairn/fsm";
import type { RemoteTokens } from "../client/acl/remote-tokens.js";
import type { AgentConfig } from "../config/index.js";
import { SecondaryAclEnforcer } from "../federation/secondary-acl-enforcer.js";
import type { AgentCatalog } from "../local/catalog.js";
import { aclCalls } from "./acl-calls.js";
import { catalogCalls } from "./catalog-calls.js";
import type { TunnelCalls } from "./server-route.js";

export interface ClientCallsOptions {
  /** The server's catalog (its replica, written through Raft). */
  catalog: AgentCatalog;
  /** The server's state store, for the ACL tables. */
  store: StateStore;
  config: AgentConfig;
  now: () => number;
  /** A secondary without token replication: its tokens resolved in the primary (shared with its HTTP API). */
  remoteTokens?: RemoteTokens;
}

/**
 * Every agent RPC a server answers for its client agents: their anti-entropy and, with ACLs on, token
 * resolution, each anti-entropy call then authorized with the token it carries (the written entry's own,
 * or the agent token). That token is resolved as sent, an empty one as anonymous: the client has already
 * put its own default token in.
 */
export function clientCalls(o: ClientCallsOptions): TunnelCalls {
  const { datacenter, primaryDatacenter, acl: settings } = o.config;
  if (!settings.enabled) return catalogCalls(o.catalog);
  const defaultPolicy = settings.defaultPolicy;
  const options = { store: o.store, datacenter, primaryDatacenter, defaultPolicy, clock: o.now };
  const secondary = o.remoteTokens
    ? new SecondaryAclEnforcer({ ...options, tokens: o.remoteTokens })
    : undefined;
  return {
    ...catalogCalls(o.catalog, secondary ?? new AclEnforcer(options)),
    ...aclCalls({
      store: o.store,
      datacenter,
      defaultPolicy,
      now: o.now,
      ...(secondary ? { secondary } : {}),
    }),
  };
}
