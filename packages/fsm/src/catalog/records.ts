/**
 * Catalog records as the state store hands them out. Field names follow Consul's JSON so the HTTP layer can
 * pass them through. Every record is immutable once stored: updates replace the record, which is what makes
 * O(1) views safe.
 */

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

/** One instance of a service joined with its node: the HTTP layer flattens it into Consul's shapes. */
export interface ServiceInstance {
  readonly node: CatalogNode;
  readonly service: NodeService;
}
