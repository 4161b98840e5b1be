import { AclEnforcer } from "@cairn/api";
import type { StateStore } from "@cairn/fsm";
import type { AgentConfig } from "../config/index.js";
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
  const acl = new AclEnforcer({ store: o.store, datacenter, primaryDatacenter, defaultPolicy, clock: o.now });
  return {
    ...catalogCalls(o.catalog, acl),
    ...aclCalls({ store: o.store, datacenter, defaultPolicy, now: o.now }),
  };
}
