import { randomUUID } from "node:crypto";
import pino, { type Logger } from "pino";
import type { AclEnforcer } from "../acl/enforcer.js";
import { type Authorizer, allowAll } from "../authorizer.js";
import {
  type ApiConfig,
  type ApiDeps,
  type ClusterBackend,
  type DatacenterCoordinatesJson,
  type DatacenterForward,
  DEFAULT_API_CONFIG,
} from "../backend.js";
import type { ReplicationStatusJson } from "../replication/status.js";

/** ApiDeps with every default filled in: what route modules receive. */
export interface RouteContext {
  backend: ClusterBackend;
  authorizer: Authorizer;
  /** Present when ACLs are on. */
  acl: AclEnforcer | undefined;
  nodeName: string;
  datacenter: string;
  primaryDatacenter: string;
  /** See ApiDeps.tokenReplication. */
  tokenReplication: boolean;
  config: ApiConfig;
  now: () => number;
  random: () => number;
  uuid: () => string;
  logger: Logger;
  /** Known datacenters, nearest first; [datacenter] without a WAN view. */
  datacenters: () => string[];
  /** WAN coordinates per datacenter; undefined: none known (the routes fall back to the catalog's). */
  coordinateDatacenters: () => DatacenterCoordinatesJson[] | undefined;
  aclBootstrapResetFile: string | undefined;
  /** This server's replication status (the leader's unless `stale`); undefined where none runs. */
  replication: ((stale: boolean) => Promise<ReplicationStatusJson>) | undefined;
  /** Requests for another datacenter, to one of its servers; undefined: no server of it is known. */
  forwardDatacenter: DatacenterForward;
}

export function resolveDeps(deps: ApiDeps): RouteContext {
  return {
    backend: deps.backend,
    authorizer: deps.acl ?? deps.authorizer ?? allowAll,
    acl: deps.acl,
    nodeName: deps.nodeName,
    datacenter: deps.datacenter,
    primaryDatacenter: deps.primaryDatacenter || deps.datacenter,
    tokenReplication: deps.tokenReplication ?? false,
    config: { ...DEFAULT_API_CONFIG, ...deps.config },
    now: deps.now ?? Date.now,
    random: deps.random ?? Math.random,
    uuid: deps.uuid ?? randomUUID,
    logger: deps.logger ?? pino({ level: "silent" }),
    datacenters: deps.datacenters ?? (() => [deps.datacenter]),
    coordinateDatacenters: deps.coordinateDatacenters ?? (() => undefined),
    aclBootstrapResetFile: deps.aclBootstrapResetFile,
    replication: deps.replication,
    forwardDatacenter: deps.forwardDatacenter ?? (() => undefined),
  };
}
