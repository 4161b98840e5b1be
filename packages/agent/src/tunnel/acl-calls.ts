import {
  AclNotFoundError,
  type AclTokenRecords,
  type DefaultPolicy,
  RulesCache,
  recordTokenResolution,
} from "@cairn/acl";
import { type StateReader, storeAclLookups } from "@cairn/api";
import type { SecondaryAclEnforcer } from "../federation/secondary-acl-enforcer.js";
import type { TunnelPool } from "./pool.js";
import type { TunnelCalls } from "./server-route.js";

const RESOLVE = "acl.resolve";

export interface AclCallsOptions {
  store: StateReader;
  datacenter: string;
  defaultPolicy: DefaultPolicy;
  now: () => number;
  /** A secondary without token replication: tokens not held here are resolved in the primary. */
  secondary?: SecondaryAclEnforcer;
}

/**
 * A server's answer to client agents resolving a token: the token and every policy, role and namespace
 * default its resolution reads, or null when the secret is unknown or expired. Knowing the secret is what
 * entitles a caller to its records, as a token may always read itself.
 */
export function aclCalls(o: AclCallsOptions): TunnelCalls {
  const lookups = storeAclLookups(o.store);
  const rules = new RulesCache();
  return {
    [RESOLVE]: async (secret) => {
      if (typeof secret !== "string" || secret === "") throw new Error("token resolution needs a secret");
      const remote = await o.secondary?.remoteRecords(secret);
      if (remote !== undefined) return remote;
      try {
        const ctx = { now: o.now(), datacenter: o.datacenter, defaultPolicy: o.defaultPolicy, rules };
        return recordTokenResolution(secret, lookups, ctx).records;
      } catch (err) {
        if (err instanceof AclNotFoundError) return null;
        throw err;
      }
    },
  };
}

/** A client agent's token resolution: a server's records of the token, undefined when it is unknown. */
export function tunnelAclResolve(pool: TunnelPool): (secret: string) => Promise<AclTokenRecords | undefined> {
  return async (secret) => ((await pool.call(RESOLVE, [secret])) as AclTokenRecords | null) ?? undefined;
}
