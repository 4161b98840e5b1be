/**
 * Records the state store hands out. Field names follow Consul's JSON so the HTTP layer can pass them through.
 * Every record is immutable once stored: updates replace the record, which is what makes O(1) views safe.
 */

export const DEFAULT_NAMESPACE = "default";

/** A KV entry as reads return it. `Value` is null in transaction results of write verbs. */
export interface KVEntry {
  readonly Key: string;
  readonly Value: Uint8Array | null;
  /** Exact over 0..2^64-1; never a JS number. */
  readonly Flags: bigint;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly LockIndex: number;
  /** ID of the session holding the lock; absent when unlocked. */
  readonly Session?: string;
  readonly Namespace: string;
}

export type SessionBehavior = "release" | "delete";

/** A service-level check a session depends on (Consul 1.7+ `ServiceChecks`). */
export interface SessionServiceCheck {
  readonly ID: string;
  /** "" for the default namespace, as Consul's open-source edition writes it. */
  readonly Namespace: string;
}

export interface Session {
  readonly ID: string;
  readonly Name: string;
  readonly Node: string;
  /** Node-level check IDs on the session's node (Consul 1.7+). */
  readonly NodeChecks: readonly string[];
  /** Service-level checks on the session's node; null when none were named, as Consul writes it. */
  readonly ServiceChecks: readonly SessionServiceCheck[] | null;
  /** The pre-1.7 list, kept only when a client sent one; omitted when empty, as Consul does. */
  readonly Checks?: readonly string[];
  /** Nanoseconds (Consul's JSON shape: 15s is 1.5e10). */
  readonly LockDelay: number;
  readonly Behavior: SessionBehavior;
  /** As given, e.g. "30s"; empty for no TTL. */
  readonly TTL: string;
  readonly Namespace: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export type StringMap = Readonly<Record<string, string>>;

export interface CatalogNode {
  readonly ID: string;
  readonly Node: string;
  readonly Address: string;
  readonly Datacenter: string;
  readonly TaggedAddresses: StringMap;
  readonly Meta: StringMap;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export interface ServiceAddress {
  readonly Address: string;
  readonly Port: number;
}

export interface ServiceWeights {
  readonly Passing: number;
  readonly Warning: number;
}

/** A service instance registered on a node (Consul's NodeService). */
export interface NodeService {
  readonly ID: string;
  readonly Service: string;
  readonly Tags: readonly string[];
  readonly Address: string;
  readonly TaggedAddresses: Readonly<Record<string, ServiceAddress>>;
  readonly Meta: StringMap;
  readonly Port: number;
  /** "" for a typical service; "connect-proxy", "mesh-gateway", ... otherwise. */
  readonly Kind: string;
  readonly Proxy: Readonly<Record<string, unknown>> | null;
  readonly Connect: Readonly<Record<string, unknown>> | null;
  readonly EnableTagOverride: boolean;
  readonly Weights: ServiceWeights;
  readonly Namespace: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export type HealthStatus = "passing" | "warning" | "critical";

export interface HealthCheck {
  readonly Node: string;
  readonly CheckID: string;
  readonly Name: string;
  readonly Status: HealthStatus;
  readonly Notes: string;
  readonly Output: string;
  readonly ServiceID: string;
  readonly ServiceName: string;
  readonly ServiceTags: readonly string[];
  readonly Type: string;
  readonly Definition: Readonly<Record<string, unknown>>;
  readonly Namespace: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

export interface Coord {
  readonly Vec: readonly number[];
  readonly Error: number;
  readonly Adjustment: number;
  readonly Height: number;
}

export interface CoordinateEntry {
  readonly Node: string;
  readonly Segment: string;
  readonly Coord: Coord;
  readonly ModifyIndex: number;
}

/** One instance of a service joined with its node: the HTTP layer flattens it into Consul's shapes. */
export interface ServiceInstance {
  readonly node: CatalogNode;
  readonly service: NodeService;
}

/**
 * A config entry as stored: the API's validated, CamelCase form of one of the eight kinds (fields beyond these
 * depend on the kind), stamped with its namespace and Raft indexes.
 */
export interface ConfigEntry {
  readonly Kind: string;
  readonly Name: string;
  readonly Namespace: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly [field: string]: unknown;
}
