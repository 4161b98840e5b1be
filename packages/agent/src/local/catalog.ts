import { allowAll, type CatalogWriteContext, catalogRpc, type StateReader } from "@cairn/api";
import type { RegisterSpec } from "@cairn/fsm";
import type { CatalogSnapshot } from "./sync-plan.js";

/** What anti-entropy reads of the catalog: this node's entries and the cluster's node count. */
export interface CatalogRead {
  catalog: CatalogSnapshot;
  /** Nodes in the catalog (the full-sync period grows with it). */
  nodes: number;
}

/** The body of a Catalog.Deregister that anti-entropy sends: one service or one check of its node. */
export interface DeregisterRequest {
  readonly Node: string;
  readonly ServiceID?: string;
  readonly CheckID?: string;
  readonly Namespace: string;
}

/**
 * A catalog write as anti-entropy makes it, as a Consul agent does: the RPC and the body that the catalog
 * endpoint takes (PUT /v1/catalog/register and /deregister take the same).
 */
export type CatalogWrite =
  | { readonly rpc: "Catalog.Register"; readonly body: RegisterSpec }
  | { readonly rpc: "Catalog.Deregister"; readonly body: DeregisterRequest };

/**
 * The catalog as the local agent sees it: a server reads its own replica and writes through its catalog
 * endpoint's code; a client agent, which keeps no state, asks a server for both through the tunnel.
 */
export interface AgentCatalog {
  read(node: string): Promise<CatalogRead>;
  /**
   * Makes `write` with the ACL token of what it writes (a server's own agent is trusted and the token
   * ignored; a client agent's server authorizes the write with it). Rejects with the endpoint's refusal.
   */
  write(write: CatalogWrite, token: string): Promise<void>;
}

/** This node's catalog entries as a replica holds them. */
export function readCatalog(store: StateReader, node: string): CatalogRead {
  const view = store.view();
  const entry = view.node(node).value;
  return {
    catalog: {
      node: entry?.node,
      services: entry?.services ?? [],
      checks: entry ? view.checksForNode(node).value : [],
    },
    nodes: view.nodes().value.length,
  };
}

/**
 * A server's own catalog: its replica, and the catalog endpoint's code over its write path. The server's
 * agent is trusted, so its writes are validated as any but never refused for their token.
 */
export function storeCatalog(ctx: Omit<CatalogWriteContext, "authorizer">): AgentCatalog {
  const trusted: CatalogWriteContext = { ...ctx, authorizer: allowAll };
  return {
    read: async (node) => readCatalog(ctx.backend.store, node),
    write: (write) => catalogRpc(trusted, write.rpc, JSON.stringify(write.body), ""),
  };
}
