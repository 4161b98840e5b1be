import { type FilterSchema, field } from "./schema.js";

/**
 * The record shapes Consul's filterable endpoints return, as filter schemas. Field names are the JSON keys of
 * Consul's outputs; the operators each selector allows follow from the field types (see schema.ts), which
 * reproduces spec 2's table and Consul's per-endpoint documentation.
 */

const { string, bool, int, map, list, struct } = field;

const taggedServiceAddress = struct({ Address: string, Port: int });
const weights = struct({ Passing: int, Warning: int });
const meshGateway = struct({ Mode: string });
const upstream = struct({
  DestinationType: string,
  DestinationNamespace: string,
  DestinationName: string,
  Datacenter: string,
  LocalBindAddress: string,
  LocalBindPort: int,
  MeshGateway: meshGateway,
});
const proxy = struct({
  DestinationServiceName: string,
  DestinationServiceID: string,
  LocalServiceAddress: string,
  LocalServicePort: int,
  MeshGateway: meshGateway,
  Upstreams: list(upstream),
});
const connect = struct({ Native: bool });

/** A node, as `/catalog/nodes` lists it (and as the `Node` of a health entry). */
const node = struct({
  ID: string,
  Node: string,
  Address: string,
  Datacenter: string,
  TaggedAddresses: map(string),
  Meta: map(string),
});

/** A catalog service instance (`ServiceNode`), one entry of `/catalog/service/:service`. */
const serviceInstance = struct({
  ID: string,
  Node: string,
  Address: string,
  Datacenter: string,
  TaggedAddresses: map(string),
  NodeMeta: map(string),
  ServiceKind: string,
  ServiceID: string,
  ServiceName: string,
  ServiceTags: list(string),
  ServiceAddress: string,
  ServiceTaggedAddresses: map(taggedServiceAddress),
  ServiceWeights: weights,
  ServiceMeta: map(string),
  ServicePort: int,
  ServiceEnableTagOverride: bool,
  ServiceProxy: proxy,
  ServiceConnect: connect,
});

/** A service as a node holds it (`NodeService`): the values of `/catalog/node/:node`'s `Services`. */
const nodeService = struct({
  Kind: string,
  ID: string,
  Service: string,
  Tags: list(string),
  Address: string,
  TaggedAddresses: map(taggedServiceAddress),
  Meta: map(string),
  Port: int,
  Weights: weights,
  EnableTagOverride: bool,
  Proxy: proxy,
  Connect: connect,
});

/** A health check, as `/health/node`, `/health/checks`, `/health/state` and `/agent/checks` return them. */
const check = struct({
  Node: string,
  CheckID: string,
  Name: string,
  Status: string,
  Notes: string,
  Output: string,
  ServiceID: string,
  ServiceName: string,
  ServiceTags: list(string),
});

/** One entry of `/health/service/:service` and `/health/connect/:service`. */
const healthServiceEntry = struct({ Node: node, Service: nodeService, Checks: list(check) });

export const filterSchemas: {
  /** `/catalog/nodes`. */
  readonly nodes: FilterSchema;
  /** `/catalog/service/:service` and `/catalog/connect/:service`. */
  readonly service: FilterSchema;
  /** Each value of `/catalog/node/:node`'s `Services`; also fits `/agent/services` values. */
  readonly nodeService: FilterSchema;
  /** `/health/service/:service` and `/health/connect/:service` entries. */
  readonly healthService: FilterSchema;
  /** Checks: `/health/node/:node`, `/health/checks/:service`, `/health/state/:state`, `/agent/checks`. */
  readonly check: FilterSchema;
} = { nodes: node, service: serviceInstance, nodeService, healthService: healthServiceEntry, check };
