import { AclEnforcer, type ClusterBackend } from "@cairn/api";
import type { RemoteTokens } from "../client/acl/remote-tokens.js";
import type { AgentConfig } from "../config/index.js";
import { SecondaryAclEnforcer } from "../federation/secondary-acl-enforcer.js";
import { aclCalls } from "./acl-calls.js";
import { catalogCalls } from "./catalog-calls.js";
import type { TunnelCalls } from "./server-route.js";

export interface ClientCallsOptions {
  /** The server's write path and its replica (the catalog, and the ACL tables). */
  backend: Pick<ClusterBackend, "apply" | "store">;
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
  const catalog = { backend: o.backend, datacenter, now: o.now };
  if (!settings.enabled) return catalogCalls(catalog);
  const store = o.backend.store;
  const defaultPolicy = settings.defaultPolicy;
  const options = { store, datacenter, primaryDatacenter, defaultPolicy, clock: o.now };
  const secondary = o.remoteTokens
    ? new SecondaryAclEnforcer({ ...options, tokens: o.remoteTokens })
    : undefined;
  return {
    ...catalogCalls({ ...catalog, acl: secondary ?? new AclEnforcer(options) }),
    ...aclCalls({
      store,
      datacenter,
      defaultPolicy,
      now: o.now,
      ...(secondary ? { secondary } : {}),
    }),
  };
}
