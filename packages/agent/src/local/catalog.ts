import type { ClusterBackend } from "@cairn/api";
import type { ApplyResult, Command } from "@cairn/fsm";
import type { CatalogSnapshot } from "./sync-plan.js";

/** What anti-entropy reads of the catalog: this node's entries and the cluster's node count. */
export interface CatalogRead {
  catalog: CatalogSnapshot;
  /** Nodes in the catalog (the full-sync period grows with it). */
  nodes: number;
}

/**
 * The catalog as the local agent sees it: a server reads its own replica and writes through Raft; a client
 * agent, which keeps no state, asks a server for both through the tunnel.
 */
export interface AgentCatalog {
  read(node: string): Promise<CatalogRead>;
  /**
   * Writes a catalog.register or catalog.deregister command with the ACL token of what it writes (a server
   * writes its own catalog trusted and ignores it; a client agent's server authorizes the write with it).
   */
  apply(command: Command, token: string): Promise<ApplyResult>;
}

/** A server's catalog: its local replica and its write path. */
export function storeCatalog(backend: ClusterBackend): AgentCatalog {
  return {
    read: async (node) => {
      const view = backend.store.view();
      const entry = view.node(node).value;
      return {
        catalog: {
          node: entry?.node,
          services: entry?.services ?? [],
          checks: entry ? view.checksForNode(node).value : [],
        },
        nodes: view.nodes().value.length,
      };
    },
    apply: (command) => backend.apply(command),
  };
}
