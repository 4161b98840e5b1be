// An in-memory StateView for the listener's and resolver's own tests (the agent's view is tested end to end).
import type { Instance, NodeRecord, QueryAnswer, StateView } from "../src/index.js";

export interface MemoryState {
  nodes: NodeRecord[];
  services: (Instance & { service: string; tags: string[] })[];
  queries?: Record<string, QueryAnswer>;
}

export function memoryView(state: MemoryState): StateView {
  return {
    // A datacenter's records are those whose node is in it; the local one is dc1, as node() makes them.
    instances: async (service, tag, dc) =>
      state.services.filter(
        (s) =>
          s.service === service &&
          (tag === undefined || s.tags.includes(tag)) &&
          s.node.datacenter === (dc ?? "dc1"),
      ),
    node: async (name, dc) => {
      const node = state.nodes.find(
        (n) => n.name.toLowerCase() === name.toLowerCase() && n.datacenter === (dc ?? "dc1"),
      );
      return node ? { node, checks: [] } : undefined;
    },
    nodes: async () => state.nodes,
    query: async (id) => state.queries?.[id],
  };
}

export function node(name: string, address: string, meta: Record<string, string> = {}): NodeRecord {
  return { name, address, datacenter: "dc1", meta };
}

export function instance(
  service: string,
  n: NodeRecord,
  o: { port?: number; address?: string; tags?: string[]; status?: string } = {},
): Instance & { service: string; tags: string[] } {
  return {
    service,
    tags: o.tags ?? [],
    node: n,
    serviceAddress: o.address ?? "",
    port: o.port ?? 80,
    weight: 1,
    checks: [{ checkId: "c", status: o.status ?? "passing" }],
  };
}
