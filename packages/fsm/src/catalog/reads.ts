import { DEFAULT_NAMESPACE, joinKey, prefixEnd, SEP } from "../store/keys.js";
import { channelRead, inNamespace, type Read, readAt, type ViewScope } from "../store/read.js";
import { channelWatch } from "../store/watch/keys.js";
import type { CatalogNode, HealthCheck, HealthStatus, NodeService, ServiceInstance } from "./records.js";
import { CatalogChannels as Channels } from "./tables.js";
import { checksOnNode, servicesOnNode } from "./writes.js";

/** A service instance with its checks (node-level and its own), for health endpoints. */
export interface ServiceHealth extends ServiceInstance {
  readonly checks: readonly HealthCheck[];
}

export interface ServiceQuery {
  /** All must be present on the instance. */
  readonly tags?: readonly string[];
  /** `*` for every namespace. */
  readonly ns?: string;
}

export function nodes(v: ViewScope): Read<CatalogNode[]> {
  return channelRead(v, [...v.t.nodes.values()], v.t.indexes.nodes, Channels.nodes);
}

/** The node (by name or ID) with its services; undefined when it is not registered. */
export function node(
  v: ViewScope,
  name: string,
  ns?: string,
): Read<{ node: CatalogNode; services: NodeService[] } | undefined> {
  const t = v.t;
  const found = t.nodes.get(name) ?? t.nodes.get(t.nodeIds.get(name) ?? "");
  const value = found
    ? { node: found, services: servicesOnNode(t, found.Node).filter((s) => inNamespace(ns, s.Namespace)) }
    : undefined;
  return channelRead(
    v,
    value,
    Math.max(t.indexes.nodes, t.indexes.services),
    Channels.node(found?.Node ?? name),
  );
}

/** Service name -> union of its instances' tags (sorted, distinct). */
export function services(v: ViewScope, ns?: string): Read<Record<string, string[]>> {
  const tags = new Map<string, Set<string>>();
  v.t.servicesByName.forEach((s) => {
    if (!inNamespace(ns, s.Namespace)) return;
    let set = tags.get(s.Service);
    if (!set) {
      set = new Set();
      tags.set(s.Service, set);
    }
    for (const tag of s.Tags) set.add(tag);
  });
  const out: Record<string, string[]> = {};
  for (const [name, set] of [...tags].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    out[name] = [...set].sort();
  return channelRead(v, out, v.t.indexes.services, Channels.services);
}

export function serviceInstances(
  v: ViewScope,
  name: string,
  query: ServiceQuery = {},
): Read<ServiceInstance[]> {
  const t = v.t;
  const out: ServiceInstance[] = [];
  // servicesByName keys are ns \0 name \0 node \0 service ID: the node comes from the key.
  const visit = (key: string, s: NodeService) => {
    if (query.tags && !hasTags(s, query.tags)) return;
    const node = t.nodes.get(key.split(SEP)[2]!);
    if (node) out.push({ node, service: s });
  };
  const nsList = query.ns === "*" ? namespacesOf(v, name) : [query.ns ?? DEFAULT_NAMESPACE];
  for (const ns of nsList) {
    const p = joinKey(ns, name) + SEP;
    t.servicesByName.forRange(p, prefixEnd(p), false, visit);
  }
  return readAt(v, out, serviceIndex(v, name, nsList), ...serviceWatch(name, query.ns));
}

/**
 * Connect-capable instances for a service (/catalog/connect, /health/connect): proxies whose
 * Proxy.DestinationServiceName is `name`, and instances of `name` that are Connect-native.
 */
export function connectInstances(
  v: ViewScope,
  name: string,
  query: ServiceQuery = {},
): Read<ServiceInstance[]> {
  const t = v.t;
  const out: ServiceInstance[] = [];
  t.servicesByName.forEach((s, key) => {
    if (!inNamespace(query.ns, s.Namespace)) return;
    const proxy = s.Kind === "connect-proxy" && s.Proxy?.DestinationServiceName === name;
    const native = s.Service === name && s.Connect?.Native === true;
    if (!proxy && !native) return;
    if (query.tags && !hasTags(s, query.tags)) return;
    const node = t.nodes.get(key.split(SEP)[2]!);
    if (node) out.push({ node, service: s });
  });
  return readAt(
    v,
    out,
    Math.max(t.indexes.services, t.indexes.nodes),
    channelWatch(Channels.services),
    channelWatch(Channels.nodes),
  );
}

/**
 * Instances with their node's checks and their own, for /health/service. The service name's index moves
 * on every change to its instances, their nodes and their checks, so one namespace's answer is memoized by
 * that index: a catalog read by many watchers is built once per change, not once per request.
 */
export function serviceHealth(v: ViewScope, name: string, query: ServiceQuery = {}): Read<ServiceHealth[]> {
  const ns = query.ns ?? DEFAULT_NAMESPACE;
  const named = ns === "*" ? 0 : (v.t.serviceIndexes.get(joinKey(ns, name)) ?? 0);
  if (v.memo === undefined || named === 0) return buildServiceHealth(v, name, query);
  const key = `health${SEP}${joinKey(ns, name)}${SEP}${query.tags?.join(SEP) ?? ""}`;
  // Only the value is shared: the index and the watch belong to the view that asks.
  const build = () => Object.freeze(buildServiceHealth(v, name, query).value);
  // About 100 bytes an instance: the entry object and its checks array; the records themselves are shared.
  const value = v.memo.get(key, named, build, (list) => 100 * list.length);
  return readAt(v, value as ServiceHealth[], named, ...serviceWatch(name, ns));
}

function buildServiceHealth(v: ViewScope, name: string, query: ServiceQuery): Read<ServiceHealth[]> {
  const read = serviceInstances(v, name, query);
  const value = read.value.map((inst) => ({
    ...inst,
    checks: checksOnNode(v.t, inst.node.Node).filter(
      (c) =>
        c.ServiceID === "" || (c.ServiceID === inst.service.ID && c.Namespace === inst.service.Namespace),
    ),
  }));
  return { ...read, value };
}

export function checksForNode(v: ViewScope, node: string, ns?: string): Read<HealthCheck[]> {
  const out = checksOnNode(v.t, node).filter((c) => ns === undefined || inNamespace(ns, c.Namespace));
  return channelRead(v, out, v.t.indexes.checks, Channels.node(node));
}

export function checksForService(v: ViewScope, name: string, ns?: string): Read<HealthCheck[]> {
  const out: HealthCheck[] = [];
  v.t.checks.forEach((c) => {
    if (c.ServiceName === name && inNamespace(ns, c.Namespace)) out.push(c);
  });
  const nsList = ns === "*" ? namespacesOf(v, name) : [ns ?? DEFAULT_NAMESPACE];
  // Across namespaces there is no per-name channel to watch; any check change may matter.
  const channel = ns === "*" ? Channels.checks : Channels.serviceName(ns ?? DEFAULT_NAMESPACE, name);
  return channelRead(v, out, serviceIndex(v, name, nsList), channel);
}

/** "any" lists every check. */
export function checksInState(v: ViewScope, state: HealthStatus | "any", ns?: string): Read<HealthCheck[]> {
  const out: HealthCheck[] = [];
  v.t.checks.forEach((c) => {
    if ((state === "any" || c.Status === state) && (ns === undefined || inNamespace(ns, c.Namespace)))
      out.push(c);
  });
  return channelRead(v, out, v.t.indexes.checks, Channels.checks);
}

/**
 * One service name's channel (its instances, their nodes and checks all touch it). Across namespaces
 * there is no per-name channel, so the whole tables are watched.
 */
function serviceWatch(name: string, ns: string | undefined): string[] {
  if (ns !== "*") return [channelWatch(Channels.serviceName(ns ?? DEFAULT_NAMESPACE, name))];
  return [Channels.services, Channels.nodes, Channels.checks].map(channelWatch);
}

function namespacesOf(v: ViewScope, name: string): string[] {
  const out = new Set<string>();
  v.t.servicesByName.forEach((s) => {
    if (s.Service === name) out.add(s.Namespace);
  });
  return [...out];
}

function serviceIndex(v: ViewScope, name: string, nsList: readonly string[]): number {
  const t = v.t;
  let max = 0;
  for (const ns of nsList) max = Math.max(max, t.serviceIndexes.get(joinKey(ns, name)) ?? 0);
  return max || Math.max(t.indexes.services, t.indexes.nodes);
}

/** Every wanted tag is on the service, compared case-insensitively as Consul's state store does. */
function hasTags(s: NodeService, wanted: readonly string[]): boolean {
  const have = s.Tags.map((t) => t.toLowerCase());
  return wanted.every((tag) => have.includes(tag.toLowerCase()));
}
