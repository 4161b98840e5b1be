/**
 * Prepared queries as Consul's API shapes them (structs.PreparedQuery). The state store keeps `Service` as the
 * validated object; these types name what the query logic reads from it.
 */

export interface QueryFailover {
  /** Up to this many other datacenters, nearest first by WAN round-trip time. */
  readonly NearestN: number;
  /** Tried after the NearestN ones, in order; each datacenter once. */
  readonly Datacenters: readonly string[] | null;
}

export interface ServiceQuery {
  readonly Service: string;
  readonly Failover: QueryFailover;
  readonly IgnoreCheckIDs: readonly string[] | null;
  readonly OnlyPassing: boolean;
  readonly Near: string;
  readonly Tags: readonly string[] | null;
  readonly NodeMeta: Readonly<Record<string, string>> | null;
  readonly ServiceMeta: Readonly<Record<string, string>> | null;
  readonly Connect: boolean;
}

export interface QueryTemplateOptions {
  /** `name_prefix_match` for a template, "" for a static query. */
  readonly Type: string;
  readonly Regexp: string;
  readonly RemoveEmptyTags: boolean;
}

export interface PreparedQueryDefinition {
  readonly ID: string;
  readonly Name: string;
  readonly Session: string;
  readonly Token: string;
  readonly Template: QueryTemplateOptions;
  readonly Service: ServiceQuery;
  readonly DNS: { readonly TTL: string };
}

export const TEMPLATE_TYPE_NAME_PREFIX_MATCH = "name_prefix_match";

/** Where a query runs from: the agent's network segment, for `${agent.segment}`. */
export interface QuerySource {
  readonly segment: string;
}
