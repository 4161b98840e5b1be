/** A catalog node as DNS needs it. */
export interface NodeRecord {
  name: string;
  address: string;
  datacenter: string;
  meta: Readonly<Record<string, string>>;
}

export type CheckStatus = "passing" | "warning" | "critical" | string;

/** One instance of a service with its node and checks, as /v1/health/service gives it. */
export interface Instance {
  node: NodeRecord;
  /** The service's own address; "" means the node's. */
  serviceAddress: string;
  port: number;
  weight: number;
  checks: readonly { checkId: string; status: CheckStatus }[];
}

export interface QueryAnswer {
  service: string;
  /** The query's DNS.TTL in milliseconds, when it sets one. */
  ttlMs: number | undefined;
  datacenter: string;
  instances: readonly Instance[];
}

/**
 * The reads the resolver makes. The agent implements them over its own /v1 API, so ACLs (the default
 * token), consistency and client-agent forwarding are the HTTP API's; tests may implement them in memory.
 */
export interface StateView {
  /**
   * Instances of the service (with the tag when given), unfiltered by health. With `datacenter` (another
   * one, named in the question), that datacenter's; none when it is not known.
   */
  instances(service: string, tag: string | undefined, datacenter?: string): Promise<readonly Instance[]>;
  /** The node with its checks, or undefined when it (or the other `datacenter`) is unknown or not readable. */
  node(
    name: string,
    datacenter?: string,
  ): Promise<{ node: NodeRecord; checks: readonly { checkId: string; status: CheckStatus }[] } | undefined>;
  /** Every readable node (reverse lookups). */
  nodes(): Promise<readonly NodeRecord[]>;
  /**
   * Runs a prepared query by ID or name (in the other `datacenter` when given); undefined when there is none.
   * `source` is the asker's IP (near=_ip).
   */
  query(idOrName: string, source: string | undefined, datacenter?: string): Promise<QueryAnswer | undefined>;
}
