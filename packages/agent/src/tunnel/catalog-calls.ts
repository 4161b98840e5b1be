import { DEFAULT_NAMESPACE } from "@cairn/acl";
import {
  type AclEnforcer,
  allowAll,
  type CatalogWriteContext,
  type ClusterBackend,
  catalogRpc,
  isCatalogRpc,
} from "@cairn/api";
import { SecondaryAclEnforcer } from "../federation/secondary-acl-enforcer.js";
import { type AgentCatalog, type CatalogRead, readCatalog } from "../local/catalog.js";
import type { TunnelPool } from "./pool.js";
import type { TunnelCalls } from "./server-route.js";

const READ = "agent.catalog.read";
/** A catalog write: Consul's RPC name (Catalog.Register or Catalog.Deregister), its JSON body, the token. */
const WRITE = "agent.catalog.write";
/**
 * Client agents of earlier releases sent their writes here as raw state-machine commands; they are told
 * why they are refused rather than that the call is unknown.
 */
const RETIRED_APPLY = "agent.catalog.apply";

export interface CatalogCallsOptions {
  /** The server's write path and replica. */
  backend: Pick<ClusterBackend, "apply" | "store">;
  datacenter: string;
  now: () => number;
  /** ACLs on: each call is authorized with the token it carries ("" is the anonymous token). */
  acl?: AclEnforcer;
}

/**
 * A server's answers to its client agents' anti-entropy: their node's catalog entries, and their catalog
 * writes, which run the catalog endpoint's own code (validation, authorization, the write) exactly as
 * PUT /v1/catalog/register and /deregister do. With ACLs on, each call carries the token of what it
 * writes (a service's, a check's, the agent token for node info and removals; the agent token for reads),
 * and a read takes node:read on the node.
 */
export function catalogCalls(o: CatalogCallsOptions): TunnelCalls {
  const acl = o.acl;
  const ctx: CatalogWriteContext = {
    backend: o.backend,
    authorizer: acl ?? allowAll,
    datacenter: o.datacenter,
    now: o.now,
  };
  return {
    [READ]: async (node, token) => {
      if (typeof node !== "string" || node === "") throw new Error("catalog read needs a node name");
      if (
        acl &&
        acl.authorize(await prepared(acl, token), DEFAULT_NAMESPACE, "node", node, "read") !== "allow"
      )
        throw new Error(`Permission denied: the token lacks node:read on "${node}"`);
      return readCatalog(o.backend.store, node);
    },
    [WRITE]: async (rpc, body, token) => {
      if (!isCatalogRpc(rpc))
        throw new Error(`client agents may only write to the catalog, not ${String(rpc)}`);
      if (typeof body !== "string") throw new Error(`${rpc} needs a JSON body`);
      await catalogRpc(ctx, rpc, body, acl ? await prepared(acl, token) : "");
      return true;
    },
    [RETIRED_APPLY]: async () => {
      throw new Error(`${RETIRED_APPLY} is retired: this client agent is older than its servers; upgrade it`);
    },
  };
}

/**
 * A client agent's catalog: a server's, through the tunnel. Reads go with the agent token of the moment
 * (`readToken`), each write with the token anti-entropy gives it.
 */
export function tunnelCatalog(pool: TunnelPool, readToken: () => string = () => ""): AgentCatalog {
  return {
    read: async (node) => (await pool.call(READ, [node, readToken()])) as CatalogRead,
    write: async (write, token) => {
      await pool.call(WRITE, [write.rpc, JSON.stringify(write.body), token]);
    },
  };
}

/** The secret a call acts with, resolved (a secondary may ask the primary) so authorization stays synchronous. */
async function prepared(acl: AclEnforcer, token: unknown): Promise<string> {
  // No default token of the server's stands in: the client sends its own (resolved to its default) token.
  const secret = typeof token === "string" ? token : "";
  if (acl instanceof SecondaryAclEnforcer) await acl.prepare(secret);
  return secret;
}
