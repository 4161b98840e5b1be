import { AuthMethodReads } from "./acl/auth-method-reads.js";
import { AclReads } from "./acl/reads.js";
import { type AutopilotConfig, autopilotConfig } from "./autopilot/autopilot.js";
import type { ServiceHealth, ServiceQuery } from "./catalog/reads.js";
import * as catalog from "./catalog/reads.js";
import type {
  CatalogNode,
  HealthCheck,
  HealthStatus,
  NodeService,
  ServiceInstance,
} from "./catalog/records.js";
import * as config from "./config/reads.js";
import type { ConfigEntry } from "./config/records.js";
import * as coordinates from "./coordinates/reads.js";
import type { CoordinateEntry } from "./coordinates/records.js";
import * as kv from "./kv/reads.js";
import type { KVEntry } from "./kv/records.js";
import * as namespaces from "./namespaces/reads.js";
import type { Namespace } from "./namespaces/records.js";
import * as queries from "./queries/reads.js";
import type { PreparedQuery } from "./queries/records.js";
import * as sessions from "./sessions/reads.js";
import type { Session } from "./sessions/records.js";
import { writeSnapshot } from "./snapshot/write.js";
import type { ReadMemo } from "./store/memo.js";
import type { Read, ViewScope } from "./store/read.js";
import type { Tables } from "./store/tables.js";
import { Tx } from "./store/tx.js";
import type { TxnOp } from "./txn/commands.js";
import type { TxnResponse } from "./txn/results.js";
import { isReadOnlyTxn, runTxn } from "./txn/run.js";

/** ACL reads with the namespaces a token's resolution also depends on. */
export class AclStateReads extends AclReads {
  /** A namespace by name; `default` exists even when never written. */
  namespace(name: string): Namespace | undefined {
    return namespaces.namespace(this.#scope, name);
  }

  readNamespace(name: string): Read<Namespace | undefined> {
    return namespaces.readNamespace(this.#scope, name);
  }

  /** Every namespace, `default` first, then by name. */
  readNamespaces(): Read<Namespace[]> {
    return namespaces.readNamespaces(this.#scope);
  }

  get #scope(): ViewScope {
    return { t: this.t, index: this.viewIndex };
  }
}

/**
 * A consistent, immutable view of the state at one index. Taking one is O(1) (copy-on-write clones);
 * applies that follow never show through. Each read lives in its area; this only gathers them.
 */
export class StateView {
  readonly #v: ViewScope;

  constructor(
    t: Tables,
    /** Last index applied when the view was taken. */
    readonly index: number,
    memo?: ReadMemo,
  ) {
    this.#v = memo ? { t, index, memo } : { t, index };
  }

  /**
   * `compute()` remembered by `key` at `index` in the store's memo (see ReadMemo), for a caller that turns
   * a read of this view into the same answer every time (the API's encoded list responses). The caller
   * owns the key and must name in it everything besides the read that the answer depends on.
   */
  memoized<T>(key: string, index: number, compute: () => T, weigh: (value: T) => number): T {
    return this.#v.memo ? this.#v.memo.get(key, index, compute, weigh) : compute();
  }

  kvGet(key: string, ns?: string): Read<KVEntry | undefined> {
    return kv.kvGet(this.#v, key, ns);
  }
  kvList(prefix: string, ns?: string): Read<KVEntry[]> {
    return kv.kvList(this.#v, prefix, ns);
  }
  kvKeys(prefix: string, separator?: string, ns?: string): Read<string[]> {
    return kv.kvKeys(this.#v, prefix, separator, ns);
  }

  sessionGet(id: string, ns?: string): Read<Session | undefined> {
    return sessions.sessionGet(this.#v, id, ns);
  }
  sessionList(ns?: string): Read<Session[]> {
    return sessions.sessionList(this.#v, ns);
  }
  sessionsForNode(node: string, ns?: string): Read<Session[]> {
    return sessions.sessionsForNode(this.#v, node, ns);
  }

  nodes(): Read<CatalogNode[]> {
    return catalog.nodes(this.#v);
  }
  node(name: string, ns?: string): Read<{ node: CatalogNode; services: NodeService[] } | undefined> {
    return catalog.node(this.#v, name, ns);
  }
  services(ns?: string): Read<Record<string, string[]>> {
    return catalog.services(this.#v, ns);
  }
  serviceInstances(name: string, query?: ServiceQuery): Read<ServiceInstance[]> {
    return catalog.serviceInstances(this.#v, name, query);
  }
  connectInstances(name: string, query?: ServiceQuery): Read<ServiceInstance[]> {
    return catalog.connectInstances(this.#v, name, query);
  }
  serviceHealth(name: string, query?: ServiceQuery): Read<ServiceHealth[]> {
    return catalog.serviceHealth(this.#v, name, query);
  }
  checksForNode(node: string, ns?: string): Read<HealthCheck[]> {
    return catalog.checksForNode(this.#v, node, ns);
  }
  checksForService(name: string, ns?: string): Read<HealthCheck[]> {
    return catalog.checksForService(this.#v, name, ns);
  }
  checksInState(state: HealthStatus | "any", ns?: string): Read<HealthCheck[]> {
    return catalog.checksInState(this.#v, state, ns);
  }

  coordinates(node?: string): Read<CoordinateEntry[]> {
    return coordinates.coordinates(this.#v, node);
  }

  configEntry(kind: string, name: string, ns?: string): Read<ConfigEntry | undefined> {
    return config.configEntry(this.#v, kind, name, ns);
  }
  configEntries(kind: string, ns?: string): Read<ConfigEntry[]> {
    return config.configEntries(this.#v, kind, ns);
  }

  preparedQuery(id: string): Read<PreparedQuery | undefined> {
    return queries.preparedQuery(this.#v, id);
  }
  preparedQueries(): Read<PreparedQuery[]> {
    return queries.preparedQueries(this.#v);
  }
  preparedQueryResolve(idOrName: string): Read<PreparedQuery | "template-by-id" | undefined> {
    return queries.preparedQueryResolve(this.#v, idOrName);
  }

  /** ACL tokens, policies, roles and namespaces at this view. */
  acl(): AclStateReads {
    return new AclStateReads(this.#v.t, this.index);
  }

  /** ACL auth methods and binding rules at this view. */
  authMethods(): AuthMethodReads {
    return new AuthMethodReads(this.#v.t, this.index);
  }

  /** The cluster's autopilot configuration; undefined until a leader stored one. */
  autopilotConfig(): AutopilotConfig | undefined {
    return autopilotConfig(this.#v.t);
  }

  /** The whole state as snapshot frames (see snapshot/format.ts), streamed from this view. */
  snapshot(): Generator<Uint8Array> {
    return writeSnapshot(this.#v.t, this.index);
  }

  /** A transaction with no write verbs, evaluated here without going through Raft. */
  readTxn(ops: readonly TxnOp[]): TxnResponse {
    if (!isReadOnlyTxn(ops)) throw new Error("readTxn needs a transaction without write operations");
    return runTxn(new Tx(this.#v.t.clone(), this.index), ops, 0);
  }
}
