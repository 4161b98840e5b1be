import { type ApplyResult, decodeCommand, encodeCommand } from "@cairn/fsm";
import type { AgentCatalog, CatalogRead } from "../local/catalog.js";
import type { TunnelPool } from "./pool.js";
import type { TunnelCalls } from "./server-route.js";

const READ = "agent.catalog.read";
const APPLY = "agent.catalog.apply";

/** The only writes a client agent's anti-entropy makes. */
const CATALOG_WRITES = new Set(["catalog.register", "catalog.deregister"]);

/**
 * A server's answers to its client agents' anti-entropy: their node's catalog entries, and their catalog
 * writes as fsm commands, so a client compares and writes exactly what a server's own local agent would.
 * The calls carry no ACL token: register them only on servers with ACLs off.
 */
export function catalogCalls(catalog: AgentCatalog): TunnelCalls {
  return {
    [READ]: (node) => {
      if (typeof node !== "string" || node === "") throw new Error("catalog read needs a node name");
      return catalog.read(node);
    },
    [APPLY]: (bytes) => {
      if (!(bytes instanceof Uint8Array)) throw new Error("catalog write needs an encoded command");
      const command = decodeCommand(bytes);
      if (!CATALOG_WRITES.has(command.type))
        throw new Error(`client agents may only write to the catalog, not ${command.type}`);
      return catalog.apply(command);
    },
  };
}

/** A client agent's catalog: a server's, through the tunnel. */
export function tunnelCatalog(pool: TunnelPool): AgentCatalog {
  return {
    read: async (node) => (await pool.call(READ, [node])) as CatalogRead,
    apply: async (command) => (await pool.call(APPLY, [encodeCommand(command)])) as ApplyResult,
  };
}
