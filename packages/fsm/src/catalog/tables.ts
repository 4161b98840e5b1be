import type { CatalogNode, HealthCheck, NodeService } from "./records.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** node name -> node */
    nodes: CatalogNode;
    /** node \0 ns \0 service ID -> service */
    services: NodeService;
    /** node \0 ns \0 check ID -> check */
    checks: HealthCheck;
    /** ns \0 service name -> last index anything about that service name changed (survives deregistration) */
    serviceIndexes: number;
    /** ns \0 service name \0 node \0 service ID -> service (same record as in `services`; derived) */
    servicesByName: NodeService;
    /** node ID -> node name (derived) */
    nodeIds: string;
  }
  interface TableIndexes {
    nodes: number;
    services: number;
    checks: number;
  }
}

/** Blocking-query channels: catalog reads watch a table, a service name or a node. */
export const CatalogChannels = {
  nodes: "nodes",
  services: "services",
  checks: "checks",
  serviceName: (ns: string, name: string) => `svc\u0000${ns}\u0000${name}`,
  node: (name: string) => `node\u0000${name}`,
} as const;
