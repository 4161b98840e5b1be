import type {
  CatalogNode,
  HealthCheck,
  Read,
  ServiceHealth,
  ServiceInstance,
  ServiceQuery,
  StateView,
} from "@cairn/fsm";
import { metaMatches } from "./query.js";

/**
 * Catalog reads the state view does not offer as one method, composed from its public reads. A composed
 * read reports the highest index of its parts and watches everything they watched, so a blocking query on
 * it wakes on any change to any part.
 */

export function combine<T>(value: T, ...parts: readonly Read<unknown>[]): Read<T> {
  let index = 1;
  const keys: string[] = [];
  for (const part of parts) {
    if (part.index > index) index = part.index;
    keys.push(...part.watch.keys);
  }
  return { value, index, watch: { index: parts[0]?.watch.index ?? 0, keys } };
}

/** Nodes by name, for node-meta filters over records that carry only a node name. */
export function nodesByName(view: StateView): {
  read: Read<CatalogNode[]>;
  byName: Map<string, CatalogNode>;
} {
  const read = view.nodes();
  return { read, byName: new Map(read.value.map((n) => [n.Node, n])) };
}

/** `/catalog/services?node-meta=`: service name -> tags, over the services of nodes whose meta matches. */
export function servicesByNodeMeta(
  view: StateView,
  filters: ReadonlyMap<string, string>,
  ns: string,
): Read<Record<string, string[]>> {
  const nodes = view.nodes();
  const services = view.services(ns);
  const tags = new Map<string, Set<string>>();
  for (const node of nodes.value) {
    if (!metaMatches(node.Meta, filters)) continue;
    for (const s of view.node(node.Node, ns).value?.services ?? []) {
      let set = tags.get(s.Service);
      if (set === undefined) {
        set = new Set();
        tags.set(s.Service, set);
      }
      for (const tag of s.Tags) set.add(tag);
    }
  }
  const out: Record<string, string[]> = {};
  for (const name of [...tags.keys()].sort()) out[name] = [...(tags.get(name) ?? [])].sort();
  return combine(out, nodes, services);
}

/** `/health/connect/:service`: Connect-capable instances with their node's checks and their own. */
export function connectHealth(view: StateView, name: string, query: ServiceQuery): Read<ServiceHealth[]> {
  const instances = view.connectInstances(name, query);
  const parts: Read<unknown>[] = [instances];
  const checksByNode = new Map<string, Read<HealthCheck[]>>();
  const value = instances.value.map((inst: ServiceInstance): ServiceHealth => {
    let checks = checksByNode.get(inst.node.Node);
    if (checks === undefined) {
      checks = view.checksForNode(inst.node.Node, "*");
      checksByNode.set(inst.node.Node, checks);
      parts.push(checks);
    }
    const s = inst.service;
    return {
      ...inst,
      checks: checks.value.filter(
        (c) => c.ServiceID === "" || (c.ServiceID === s.ID && c.Namespace === s.Namespace),
      ),
    };
  });
  return combine(value, ...parts);
}
