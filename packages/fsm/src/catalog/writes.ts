import { deleteNodeCoordinates } from "../coordinates/writes.js";
import { invalidateCheckSessions, invalidateNodeSessions } from "../sessions/writes.js";
import { sameRecord } from "../store/equal.js";
import { DEFAULT_NAMESPACE, joinKey, prefixEnd, SEP } from "../store/keys.js";
import type { BTree, Tables } from "../store/tables.js";
import type { Tx } from "../store/tx.js";
import type { CheckSpec, NodeSpec, RegisterSpec, ServiceSpec } from "./commands.js";
import type { CatalogNode, HealthCheck, NodeService } from "./records.js";
import { CatalogChannels as Channels } from "./tables.js";

/**
 * Catalog writes with Consul's state-store rules. Functions return an error string (Consul's text) or
 * undefined; cas variants return false when the index does not match.
 */

export const ERR_MISSING_NODE = "Missing node registration";
export const ERR_MISSING_SERVICE = "Missing service registration";

const serviceKey = (node: string, ns: string, id: string) => joinKey(node, ns, id);
const serviceNameKey = (s: NodeService, node: string) => joinKey(s.Namespace, s.Service, node, s.ID);

/** Rebuilds the catalog's secondary indexes (by service name, by node ID) from its tables. */
export function rebuildCatalogIndexes(t: Tables): void {
  t.services.forEach((s, key) => {
    t.servicesByName.set(serviceNameKey(s, key.slice(0, key.indexOf(SEP))), s);
  });
  t.nodes.forEach((n) => {
    if (n.ID) t.nodeIds.set(n.ID, n.Node);
  });
}

function under<V>(tree: BTree<string, V>, prefix: string): [string, V][] {
  const out: [string, V][] = [];
  tree.forRange(prefix, prefixEnd(prefix), false, (k, v) => {
    out.push([k, v]);
  });
  return out;
}

export function servicesOnNode(t: Tables, node: string): NodeService[] {
  return under(t.services, node + SEP).map(([, s]) => s);
}

export function checksOnNode(t: Tables, node: string): HealthCheck[] {
  return under(t.checks, node + SEP).map(([, c]) => c);
}

/** Looks a node up by ID (which takes precedence) or by name. */
export function findNode(t: Tables, spec: Pick<NodeSpec, "ID" | "Node">): CatalogNode | undefined {
  const byId = spec.ID ? t.nodeIds.get(spec.ID) : undefined;
  return t.nodes.get(byId ?? spec.Node);
}

/** Anything about a service name changed: its instances' readers wake and its index moves. */
function changedService(tx: Tx, ns: string, name: string): void {
  tx.tables.serviceIndexes.set(joinKey(ns, name), tx.index);
  tx.touch(Channels.serviceName(ns, name));
}

function nodeChanged(tx: Tx, name: string): void {
  tx.tables.indexes.nodes = tx.index;
  tx.touch(Channels.nodes);
  tx.touch(Channels.node(name));
  for (const s of servicesOnNode(tx.tables, name)) changedService(tx, s.Namespace, s.Service);
}

function servicesChanged(tx: Tx, node: string, s: NodeService): void {
  tx.tables.indexes.services = tx.index;
  tx.touch(Channels.services);
  tx.touch(Channels.node(node));
  changedService(tx, s.Namespace, s.Service);
}

function checksChanged(tx: Tx, c: HealthCheck): void {
  tx.tables.indexes.checks = tx.index;
  tx.touch(Channels.checks);
  tx.touch(Channels.node(c.Node));
  // A node-level check is part of every service instance's health on that node.
  if (!c.ServiceID) {
    for (const s of servicesOnNode(tx.tables, c.Node)) changedService(tx, s.Namespace, s.Service);
    return;
  }
  if (c.ServiceName) changedService(tx, c.Namespace, c.ServiceName);
  // Health reads match a service's checks by service ID, and the name stored on the check is the one its
  // service had when the check was written: when the service was renamed since, its new name moves too.
  const bound = getService(tx.tables, c.Node, c.Namespace, c.ServiceID);
  if (bound && bound.Service !== c.ServiceName) changedService(tx, bound.Namespace, bound.Service);
}

export function ensureNode(tx: Tx, spec: NodeSpec): string | undefined {
  const t = tx.tables;
  if (!spec.Node) return "Must provide node";
  if (spec.ID) {
    const owner = findNode(t, { ID: spec.ID, Node: "" });
    if (owner && owner.Node !== spec.Node) {
      return `node ID "${spec.ID}" for node "${spec.Node}" aliases existing node "${owner.Node}"`;
    }
  }
  const existing = t.nodes.get(spec.Node);
  const node: CatalogNode = {
    ID: spec.ID ?? "",
    Node: spec.Node,
    Address: spec.Address ?? "",
    Datacenter: spec.Datacenter ?? "",
    TaggedAddresses: spec.TaggedAddresses ?? {},
    Meta: spec.Meta ?? {},
    CreateIndex: existing?.CreateIndex ?? tx.index,
    ModifyIndex: tx.index,
  };
  if (existing && sameRecord(existing, node)) return undefined;
  if (existing?.ID) t.nodeIds.delete(existing.ID);
  if (node.ID) t.nodeIds.set(node.ID, node.Node);
  t.nodes.set(node.Node, node);
  nodeChanged(tx, node.Node);
  return undefined;
}

/** ModifyIndex 0: only if absent; otherwise only if it matches. */
export function ensureNodeCas(tx: Tx, spec: NodeSpec): boolean | string {
  const existing = tx.tables.nodes.get(spec.Node);
  const want = spec.ModifyIndex ?? 0;
  if (want === 0 ? existing !== undefined : existing?.ModifyIndex !== want) return false;
  return ensureNode(tx, spec) ?? true;
}

export function deleteNode(tx: Tx, name: string, now: number): void {
  const t = tx.tables;
  if (!t.nodes.has(name)) return;
  for (const c of checksOnNode(t, name)) deleteCheck(tx, name, c.Namespace, c.CheckID, now);
  for (const s of servicesOnNode(t, name)) deleteService(tx, name, s.Namespace, s.ID, now);
  deleteNodeCoordinates(tx, name);
  const node = t.nodes.get(name);
  if (node?.ID) t.nodeIds.delete(node.ID);
  t.nodes.delete(name);
  nodeChanged(tx, name);
  invalidateNodeSessions(tx, name, now);
}

export function deleteNodeCas(tx: Tx, name: string, index: number, now: number): boolean {
  const existing = tx.tables.nodes.get(name);
  if (!existing || existing.ModifyIndex !== index) return false;
  deleteNode(tx, name, now);
  return true;
}

export function getService(t: Tables, node: string, ns: string, id: string): NodeService | undefined {
  return t.services.get(serviceKey(node, ns, id));
}

export function ensureService(tx: Tx, node: string, spec: ServiceSpec): string | undefined {
  const t = tx.tables;
  if (!t.nodes.has(node)) return ERR_MISSING_NODE;
  if (!spec.Service) return "Must provide service name";
  const ns = spec.Namespace ?? DEFAULT_NAMESPACE;
  const id = spec.ID || spec.Service;
  const key = serviceKey(node, ns, id);
  const existing = t.services.get(key);
  const service: NodeService = {
    ID: id,
    Service: spec.Service,
    Tags: spec.Tags ?? [],
    Address: spec.Address ?? "",
    TaggedAddresses: spec.TaggedAddresses ?? {},
    Meta: spec.Meta ?? {},
    Port: spec.Port ?? 0,
    Kind: spec.Kind ?? "",
    Proxy: spec.Proxy ?? null,
    Connect: spec.Connect ?? null,
    EnableTagOverride: spec.EnableTagOverride ?? false,
    Weights: spec.Weights ?? { Passing: 1, Warning: 1 },
    Namespace: ns,
    CreateIndex: existing?.CreateIndex ?? tx.index,
    ModifyIndex: tx.index,
  };
  if (existing && sameRecord(existing, service)) return undefined;
  if (existing) {
    t.servicesByName.delete(serviceNameKey(existing, node));
    if (existing.Service !== service.Service) servicesChanged(tx, node, existing);
  }
  t.services.set(key, service);
  t.servicesByName.set(serviceNameKey(service, node), service);
  servicesChanged(tx, node, service);
  return undefined;
}

export function ensureServiceCas(tx: Tx, node: string, spec: ServiceSpec): boolean | string {
  const existing = getService(tx.tables, node, spec.Namespace ?? DEFAULT_NAMESPACE, spec.ID || spec.Service);
  const want = spec.ModifyIndex ?? 0;
  if (want === 0 ? existing !== undefined : existing?.ModifyIndex !== want) return false;
  return ensureService(tx, node, spec) ?? true;
}

/** The service and every check bound to it. */
export function deleteService(tx: Tx, node: string, ns: string, id: string, now: number): void {
  const t = tx.tables;
  const existing = t.services.get(serviceKey(node, ns, id));
  if (!existing) return;
  for (const c of checksOnNode(t, node)) {
    if (c.ServiceID === id && c.Namespace === ns) deleteCheck(tx, node, ns, c.CheckID, now);
  }
  t.services.delete(serviceKey(node, ns, id));
  t.servicesByName.delete(serviceNameKey(existing, node));
  servicesChanged(tx, node, existing);
}

export function deleteServiceCas(
  tx: Tx,
  node: string,
  ns: string,
  id: string,
  index: number,
  now: number,
): boolean {
  const existing = getService(tx.tables, node, ns, id);
  if (!existing || existing.ModifyIndex !== index) return false;
  deleteService(tx, node, ns, id, now);
  return true;
}

export function checkID(spec: CheckSpec): string {
  return spec.CheckID || spec.Name || "";
}

/** A check that is (or becomes) critical invalidates the sessions that name it. */
export function ensureCheck(tx: Tx, node: string, spec: CheckSpec, now: number): string | undefined {
  const t = tx.tables;
  if (!t.nodes.has(node)) return ERR_MISSING_NODE;
  const id = checkID(spec);
  if (!id) return "Missing check ID";
  const ns = spec.Namespace ?? DEFAULT_NAMESPACE;
  let service: NodeService | undefined;
  if (spec.ServiceID) {
    service = getService(t, node, ns, spec.ServiceID);
    if (!service) return ERR_MISSING_SERVICE;
  }
  const key = joinKey(node, ns, id);
  const existing = t.checks.get(key);
  const check: HealthCheck = {
    Node: node,
    CheckID: id,
    Name: spec.Name ?? id,
    Status: spec.Status ?? "critical",
    Notes: spec.Notes ?? "",
    Output: spec.Output ?? "",
    ServiceID: spec.ServiceID ?? "",
    ServiceName: service?.Service ?? "",
    ServiceTags: service?.Tags ?? [],
    Type: spec.Type ?? "",
    Definition: spec.Definition ?? {},
    Namespace: ns,
    CreateIndex: existing?.CreateIndex ?? tx.index,
    ModifyIndex: tx.index,
  };
  if (existing && sameRecord(existing, check)) return undefined;
  t.checks.set(key, check);
  if (existing && existing.ServiceName !== check.ServiceName) checksChanged(tx, existing);
  checksChanged(tx, check);
  if (check.Status === "critical") {
    invalidateCheckSessions(tx, node, ns, id, now);
  }
  return undefined;
}

export function getCheck(t: Tables, node: string, ns: string, id: string): HealthCheck | undefined {
  return t.checks.get(joinKey(node, ns, id));
}

export function ensureCheckCas(tx: Tx, node: string, spec: CheckSpec, now: number): boolean | string {
  const existing = getCheck(tx.tables, node, spec.Namespace ?? DEFAULT_NAMESPACE, checkID(spec));
  const want = spec.ModifyIndex ?? 0;
  if (want === 0 ? existing !== undefined : existing?.ModifyIndex !== want) return false;
  return ensureCheck(tx, node, spec, now) ?? true;
}

export function deleteCheck(tx: Tx, node: string, ns: string, id: string, now: number): void {
  const t = tx.tables;
  const existing = getCheck(t, node, ns, id);
  if (!existing) return;
  t.checks.delete(joinKey(node, ns, id));
  checksChanged(tx, existing);
  invalidateCheckSessions(tx, node, ns, id, now);
}

export function deleteCheckCas(
  tx: Tx,
  node: string,
  ns: string,
  id: string,
  index: number,
  now: number,
): boolean {
  const existing = getCheck(tx.tables, node, ns, id);
  if (!existing || existing.ModifyIndex !== index) return false;
  deleteCheck(tx, node, ns, id, now);
  return true;
}

/** Node (unless SkipNodeUpdate and it exists), then the service, then the checks. */
export function register(tx: Tx, reg: RegisterSpec, now: number): string | undefined {
  const t = tx.tables;
  if (!reg.SkipNodeUpdate || !t.nodes.has(reg.Node)) {
    const err = ensureNode(tx, {
      ID: reg.ID,
      Node: reg.Node,
      Address: reg.Address,
      Datacenter: reg.Datacenter,
      TaggedAddresses: reg.TaggedAddresses,
      Meta: reg.NodeMeta,
    });
    if (err) return err;
  }
  if (reg.Service) {
    const err = ensureService(tx, reg.Node, reg.Service);
    if (err) return err;
  }
  for (const check of [...(reg.Check ? [reg.Check] : []), ...(reg.Checks ?? [])]) {
    const err = ensureCheck(tx, check.Node || reg.Node, check, now);
    if (err) return err;
  }
  return undefined;
}
