import { AclStateReads } from "../areas/acl-reads.js";
import { AuthMethodReads } from "../areas/auth-methods-reads.js";
import { type AutopilotConfig, autopilotConfig } from "../areas/autopilot.js";
import {
  configEntriesOfKind,
  configEntryChannel,
  configEntryKey,
  configKindChannel,
} from "../areas/config-entries.js";
import {
  type PreparedQuery,
  preparedQueriesChannel,
  resolvePreparedQuery,
} from "../areas/prepared-queries.js";
import type { TxnResponse } from "../commands/results.js";
import type { TxnOp } from "../commands/types.js";
import { writeSnapshot } from "../snapshot/write.js";
import {
  type CatalogNode,
  type ConfigEntry,
  type CoordinateEntry,
  DEFAULT_NAMESPACE,
  type HealthCheck,
  type HealthStatus,
  type KVEntry,
  type NodeService,
  type ServiceInstance,
  type Session,
} from "../types.js";
import { Channels, channelWatch, kvKeyWatch, kvPrefixWatch, type WatchSet } from "../watch/keys.js";
import { checksOnNode, servicesOnNode } from "./catalog.js";
import { splitKvKey, toKVEntry } from "./kv.js";
import { sessionIdsOnNode } from "./sessions.js";
import { joinKey, type KvRecord, prefixEnd, SEP, type Tables } from "./tables.js";
import { Tx } from "./tx.js";
import { isReadOnlyTxn, runTxn } from "./txn.js";

/** A read's answer, the index for X-Service-Index (never 0) and what to watch for a blocking query. */
export interface Read<T> {
  readonly value: T;
  readonly index: number;
  readonly watch: WatchSet;
}

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

/** `*` matches every namespace. */
const inNs = (want: string | undefined, ns: string) => want === "*" || (want ?? DEFAULT_NAMESPACE) === ns;

/**
 * A consistent, immutable view of the state at one index. Taking one is O(1) (copy-on-write clones);
 * applies that follow never show through.
 */
export class StateView {
  constructor(
    private readonly t: Tables,
    /** Last index applied when the view was taken. */
    readonly index: number,
  ) {}

  #read<T>(value: T, index: number, ...keys: string[]): Read<T> {
    return { value, index: Math.max(index, 1), watch: { index: this.index, keys } };
  }

  #channel<T>(value: T, index: number, channel: string): Read<T> {
    return this.#read(value, index, channelWatch(channel));
  }

  /** Found: its ModifyIndex. Missing: the KV table index, as Consul does. */
  kvGet(key: string, ns: string = DEFAULT_NAMESPACE): Read<KVEntry | undefined> {
    const ck = joinKey(ns, key);
    const r = this.t.kv.get(ck);
    return this.#read(
      r ? toKVEntry(ck, r, true) : undefined,
      r ? r.modifyIndex : this.t.indexes.kvs,
      kvKeyWatch(ck),
    );
  }

  /** Every entry under the prefix, in key order. `ns` "*" lists all namespaces. */
  kvList(prefix: string, ns: string = DEFAULT_NAMESPACE): Read<KVEntry[]> {
    const out: KVEntry[] = [];
    const index = this.#scanKv(prefix, ns, (ck, r) => {
      out.push(toKVEntry(ck, r, true));
    });
    return this.#read(out, index, kvPrefixWatch(ns === "*" ? "" : joinKey(ns, prefix)));
  }

  /**
   * Keys under the prefix; with a separator, keys are cut after the first separator past the prefix
   * ("directories" end with it) and repeated ones collapse.
   */
  kvKeys(prefix: string, separator = "", ns: string = DEFAULT_NAMESPACE): Read<string[]> {
    const out: string[] = [];
    const index = this.#scanKv(prefix, ns, (ck) => {
      let key = splitKvKey(ck).key;
      if (separator) {
        const at = key.indexOf(separator, prefix.length);
        if (at >= 0) key = key.slice(0, at + separator.length);
      }
      if (out[out.length - 1] !== key) out.push(key);
    });
    return this.#read(out, index, kvPrefixWatch(ns === "*" ? "" : joinKey(ns, prefix)));
  }

  /**
   * Visits live entries under a prefix and returns the index such a read reports: the highest ModifyIndex
   * among them and the tombstones under the prefix (so deletes never lower it), else the KV table index.
   */
  #scanKv(prefix: string, ns: string, visit: (ck: string, r: KvRecord) => void): number {
    let max = 0;
    if (ns === "*") {
      this.t.kv.forEach((r, ck) => {
        if (splitKvKey(ck).key.startsWith(prefix)) {
          visit(ck, r);
          if (r.modifyIndex > max) max = r.modifyIndex;
        }
      });
      this.t.tombstones.forEach((at, ck) => {
        if (at > max && splitKvKey(ck).key.startsWith(prefix)) max = at;
      });
    } else {
      const cp = joinKey(ns, prefix);
      const end = prefixEnd(cp);
      this.t.kv.forRange(cp, end, false, (ck, r) => {
        visit(ck, r);
        if (r.modifyIndex > max) max = r.modifyIndex;
      });
      this.t.tombstones.forRange(cp, end, false, (_, at) => {
        if (at > max) max = at;
      });
    }
    return prefix === "" || max === 0 ? this.t.indexes.kvs : max;
  }

  sessionGet(id: string, ns?: string): Read<Session | undefined> {
    const s = this.t.sessions.get(id);
    return this.#channel(
      s && inNs(ns, s.Namespace) ? s : undefined,
      this.t.indexes.sessions,
      Channels.sessions,
    );
  }

  sessionList(ns?: string): Read<Session[]> {
    const out: Session[] = [];
    this.t.sessions.forEach((s) => {
      if (inNs(ns, s.Namespace)) out.push(s);
    });
    return this.#channel(out, this.t.indexes.sessions, Channels.sessions);
  }

  /** Sessions on a node, given by name or node ID. */
  sessionsForNode(node: string, ns?: string): Read<Session[]> {
    const name = this.t.nodes.has(node) ? node : (this.t.nodeIds.get(node) ?? node);
    const out = sessionIdsOnNode(this.t, name)
      .map((id) => this.t.sessions.get(id))
      .filter((s): s is Session => s !== undefined && inNs(ns, s.Namespace));
    return this.#channel(out, this.t.indexes.sessions, Channels.sessions);
  }

  nodes(): Read<CatalogNode[]> {
    return this.#channel([...this.t.nodes.values()], this.t.indexes.nodes, Channels.nodes);
  }

  /** The node (by name or ID) with its services; undefined when it is not registered. */
  node(name: string, ns?: string): Read<{ node: CatalogNode; services: NodeService[] } | undefined> {
    const node = this.t.nodes.get(name) ?? this.t.nodes.get(this.t.nodeIds.get(name) ?? "");
    const value = node
      ? { node, services: servicesOnNode(this.t, node.Node).filter((s) => inNs(ns, s.Namespace)) }
      : undefined;
    return this.#channel(
      value,
      Math.max(this.t.indexes.nodes, this.t.indexes.services),
      Channels.node(node?.Node ?? name),
    );
  }

  /** Service name -> union of its instances' tags (sorted, distinct). */
  services(ns?: string): Read<Record<string, string[]>> {
    const tags = new Map<string, Set<string>>();
    this.t.servicesByName.forEach((s) => {
      if (!inNs(ns, s.Namespace)) return;
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
    return this.#channel(out, this.t.indexes.services, Channels.services);
  }

  serviceInstances(name: string, query: ServiceQuery = {}): Read<ServiceInstance[]> {
    const out: ServiceInstance[] = [];
    // servicesByName keys are ns \0 name \0 node \0 service ID: the node comes from the key.
    const visit = (key: string, s: NodeService) => {
      if (query.tags && !hasTags(s, query.tags)) return;
      const node = this.t.nodes.get(key.split(SEP)[2]!);
      if (node) out.push({ node, service: s });
    };
    const nsList = query.ns === "*" ? this.#namespacesOf(name) : [query.ns ?? DEFAULT_NAMESPACE];
    for (const ns of nsList) {
      const p = joinKey(ns, name) + SEP;
      this.t.servicesByName.forRange(p, prefixEnd(p), false, visit);
    }
    return this.#read(out, this.#serviceIndex(name, nsList), ...this.#serviceWatch(name, query.ns));
  }

  /**
   * Connect-capable instances for a service (/catalog/connect, /health/connect): proxies whose
   * Proxy.DestinationServiceName is `name`, and instances of `name` that are Connect-native.
   */
  connectInstances(name: string, query: ServiceQuery = {}): Read<ServiceInstance[]> {
    const out: ServiceInstance[] = [];
    this.t.servicesByName.forEach((s, key) => {
      if (!inNs(query.ns, s.Namespace)) return;
      const proxy = s.Kind === "connect-proxy" && s.Proxy?.DestinationServiceName === name;
      const native = s.Service === name && s.Connect?.Native === true;
      if (!proxy && !native) return;
      if (query.tags && !hasTags(s, query.tags)) return;
      const node = this.t.nodes.get(key.split(SEP)[2]!);
      if (node) out.push({ node, service: s });
    });
    return this.#read(
      out,
      Math.max(this.t.indexes.services, this.t.indexes.nodes),
      channelWatch(Channels.services),
      channelWatch(Channels.nodes),
    );
  }

  /** Instances with their node's checks and their own, for /health/service. */
  serviceHealth(name: string, query: ServiceQuery = {}): Read<ServiceHealth[]> {
    const read = this.serviceInstances(name, query);
    const value = read.value.map((inst) => ({
      ...inst,
      checks: checksOnNode(this.t, inst.node.Node).filter(
        (c) =>
          c.ServiceID === "" || (c.ServiceID === inst.service.ID && c.Namespace === inst.service.Namespace),
      ),
    }));
    return { ...read, value };
  }

  checksForNode(node: string, ns?: string): Read<HealthCheck[]> {
    const out = checksOnNode(this.t, node).filter((c) => ns === undefined || inNs(ns, c.Namespace));
    return this.#channel(out, this.t.indexes.checks, Channels.node(node));
  }

  checksForService(name: string, ns?: string): Read<HealthCheck[]> {
    const out: HealthCheck[] = [];
    this.t.checks.forEach((c) => {
      if (c.ServiceName === name && inNs(ns, c.Namespace)) out.push(c);
    });
    const nsList = ns === "*" ? this.#namespacesOf(name) : [ns ?? DEFAULT_NAMESPACE];
    // Across namespaces there is no per-name channel to watch; any check change may matter.
    const channel = ns === "*" ? Channels.checks : Channels.serviceName(ns ?? DEFAULT_NAMESPACE, name);
    return this.#channel(out, this.#serviceIndex(name, nsList), channel);
  }

  /** "any" lists every check. */
  checksInState(state: HealthStatus | "any", ns?: string): Read<HealthCheck[]> {
    const out: HealthCheck[] = [];
    this.t.checks.forEach((c) => {
      if ((state === "any" || c.Status === state) && (ns === undefined || inNs(ns, c.Namespace))) out.push(c);
    });
    return this.#channel(out, this.t.indexes.checks, Channels.checks);
  }

  /** All coordinates, or one node's (one per segment). */
  coordinates(node?: string): Read<CoordinateEntry[]> {
    const out: CoordinateEntry[] = [];
    if (node === undefined) this.t.coordinates.forEach((c) => void out.push(c));
    else {
      const p = node + SEP;
      this.t.coordinates.forRange(p, prefixEnd(p), false, (_, c) => void out.push(c));
    }
    return this.#channel(out, this.t.indexes.coordinates, Channels.coordinates);
  }

  /** One config entry; the index is the config table's, as Consul reports it. */
  configEntry(kind: string, name: string, ns: string = DEFAULT_NAMESPACE): Read<ConfigEntry | undefined> {
    const entry = this.t.configEntries.get(configEntryKey(kind, ns, name));
    return this.#channel(entry, this.t.indexes.configEntries, configEntryChannel(kind, ns, name));
  }

  /** Config entries of one kind in a namespace (`*` for all), ordered by namespace then name. */
  configEntries(kind: string, ns: string = DEFAULT_NAMESPACE): Read<ConfigEntry[]> {
    const entries = configEntriesOfKind(this.t, kind, ns);
    return this.#channel(entries, this.t.indexes.configEntries, configKindChannel(kind));
  }

  /** One prepared query by ID; the index is the table's, as Consul reports it. */
  preparedQuery(id: string): Read<PreparedQuery | undefined> {
    const t = this.t;
    return this.#channel(t.preparedQueries.get(id), t.indexes.preparedQueries, preparedQueriesChannel);
  }

  /** Every prepared query, ordered by ID. */
  preparedQueries(): Read<PreparedQuery[]> {
    const t = this.t;
    return this.#channel([...t.preparedQueries.values()], t.indexes.preparedQueries, preparedQueriesChannel);
  }

  /**
   * The query an execute or explain names (ID, exact name, or longest template prefix; see
   * resolvePreparedQuery), unrendered; "template-by-id" when an ID names a template.
   */
  preparedQueryResolve(idOrName: string): Read<PreparedQuery | "template-by-id" | undefined> {
    const t = this.t;
    const found = resolvePreparedQuery(t, idOrName);
    return this.#channel(found, t.indexes.preparedQueries, preparedQueriesChannel);
  }

  /** ACL tokens, policies, roles and namespaces at this view. */
  acl(): AclStateReads {
    return new AclStateReads(this.t, this.index);
  }

  /** ACL auth methods and binding rules at this view. */
  authMethods(): AuthMethodReads {
    return new AuthMethodReads(this.t, this.index);
  }

  /** The cluster's autopilot configuration; undefined until a leader stored one. */
  autopilotConfig(): AutopilotConfig | undefined {
    return autopilotConfig(this.t);
  }

  /** The whole state as snapshot frames (see snapshot/format.ts), streamed from this view. */
  snapshot(): Generator<Uint8Array> {
    return writeSnapshot(this.t, this.index);
  }

  /** A transaction with no write verbs, evaluated here without going through Raft. */
  readTxn(ops: readonly TxnOp[]): TxnResponse {
    if (!isReadOnlyTxn(ops)) throw new Error("readTxn needs a transaction without write operations");
    return runTxn(new Tx(this.t.clone(), this.index), ops, 0);
  }

  /**
   * One service name's channel (its instances, their nodes and checks all touch it). Across namespaces
   * there is no per-name channel, so the whole tables are watched.
   */
  #serviceWatch(name: string, ns: string | undefined): string[] {
    if (ns !== "*") return [channelWatch(Channels.serviceName(ns ?? DEFAULT_NAMESPACE, name))];
    return [Channels.services, Channels.nodes, Channels.checks].map(channelWatch);
  }

  #namespacesOf(name: string): string[] {
    const out = new Set<string>();
    this.t.servicesByName.forEach((s) => {
      if (s.Service === name) out.add(s.Namespace);
    });
    return [...out];
  }

  #serviceIndex(name: string, nsList: readonly string[]): number {
    let max = 0;
    for (const ns of nsList) max = Math.max(max, this.t.serviceIndexes.get(joinKey(ns, name)) ?? 0);
    return max || Math.max(this.t.indexes.services, this.t.indexes.nodes);
  }
}

/** Every wanted tag is on the service, compared case-insensitively as Consul's state store does. */
function hasTags(s: NodeService, wanted: readonly string[]): boolean {
  const have = s.Tags.map((t) => t.toLowerCase());
  return wanted.every((tag) => have.includes(tag.toLowerCase()));
}
