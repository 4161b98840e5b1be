import type { ApplyResult, Command, Session } from "@cairn/fsm";
import type { Logger } from "pino";
import type { AclEnforcer } from "./acl/enforcer.js";
import type { AuthMethodIO } from "./auth-methods/io.js";
import type { Authorizer } from "./authorizer.js";
import type { EventBackend } from "./events.js";
import type { ReplicationStatusJson } from "./replication/status.js";
import type { StateReader } from "./state-reader.js";

/**
 * The seam between the HTTP layer and the cluster. The server implements it with Raft (forwarding writes
 * to the leader, ReadIndex for consistent reads, leader-run session timers); `LocalBackend` implements it
 * for one node in memory. Routes never touch Raft or timers directly.
 */

export type ReadMode = "default" | "stale" | "consistent";

export interface LeaderContact {
  knownLeader: boolean;
  /** Milliseconds since this server last heard from the leader (0 on the leader itself). */
  lastContactMs: number;
}

export interface SnapshotArchive {
  /** Raft index the snapshot covers; sent as X-Service-Index. */
  index: number;
  data: AsyncIterable<Uint8Array> | Uint8Array;
}

export interface ClusterBackend {
  /** The write path: commits `command` through the leader and returns the state machine's result. */
  apply(command: Command): Promise<ApplyResult>;
  /**
   * Resolves once the local store may serve a read in `mode`: default waits until it has applied the
   * leader's commit index, consistent also confirms leadership (ReadIndex), stale is immediate unless
   * the last contact is older than `maxStaleMs`, in which case it behaves as default.
   */
  readBarrier(mode: ReadMode, maxStaleMs?: number): Promise<LeaderContact>;
  /** Resets the session's TTL timer on the leader; null when there is no such session. */
  renewSession(id: string, ns: string): Promise<Session | null>;
  /** `host:port` of the leader's server RPC address, "" when none is known. */
  leader(): Promise<string>;
  /** Server RPC addresses of the voting peers. */
  peers(): Promise<string[]>;
  snapshotSave(): Promise<SnapshotArchive>;
  /**
   * Replaces the whole state with the archive, streamed (chunks of any size) and applied atomically;
   * a bad archive throws SnapshotFormatError and changes nothing.
   */
  snapshotRestore(archive: AsyncIterable<Uint8Array>): Promise<void>;
  /** The local replica of the state machine, read-only: reads and blocking-query watches. */
  readonly store: StateReader;
}

/** Thrown by the backend when no leader could be reached within its hold time; the API answers 500. */
export class NoClusterLeaderError extends Error {
  constructor() {
    super("No cluster leader");
    this.name = "NoClusterLeaderError";
  }
}

/**
 * The leader holds as many writes waiting to commit as it accepts (its followers or its disk fell behind): the
 * write was refused before anything was proposed, so it is safe to send again. The API answers 429 with
 * Retry-After, as Consul answers a request its rate limit refuses ("try again later").
 */
export class LeaderBusyError extends Error {
  constructor() {
    super(
      "rate limit exceeded, try again later: the leader holds as many writes waiting to commit as it accepts",
    );
    this.name = "LeaderBusyError";
  }
}

/** Thrown by anything behind the seam that refuses a token; the API answers 403. */
export class PermissionDeniedError extends Error {
  constructor() {
    super("Permission denied");
    this.name = "PermissionDeniedError";
  }
}

export interface ApiConfig {
  /** Smallest session TTL accepted (Consul's `session_ttl_min`); default 10 s. */
  sessionTtlMinMs: number;
  /** Largest KV value (Consul's `kv_max_value_size`); default 512 kB. */
  kvMaxValueBytes: number;
  /** Largest /v1/txn body (Consul's `txn_max_req_len`); default 512 kB. */
  txnMaxReqBytes: number;
  /** Largest JSON body of the other endpoints; default 1 MB. */
  maxBodyBytes: number;
  /** Largest snapshot accepted by restore; default 1 GB. */
  maxSnapshotBytes: number;
  /** How long coordinate updates collect before one batch goes to Raft (`coordinate_update_period`); 5 s. */
  coordinateUpdatePeriodMs: number;
}

export const DEFAULT_API_CONFIG: ApiConfig = {
  sessionTtlMinMs: 10_000,
  kvMaxValueBytes: 512 * 1024,
  txnMaxReqBytes: 512 * 1024,
  maxBodyBytes: 1024 * 1024,
  maxSnapshotBytes: 1024 * 1024 * 1024,
  coordinateUpdatePeriodMs: 5000,
};

export interface ApiDeps {
  backend: ClusterBackend;
  /** Defaults to allowing everything. */
  authorizer?: Authorizer;
  /**
   * ACLs on: enforces every endpoint's privilege (it becomes the authorizer) and serves the ACL endpoints.
   * Absent: tokens are ignored and the ACL endpoints answer 401 `ACL support disabled`.
   */
  acl?: AclEnforcer;
  /** This agent's node name: the default Node of a new session. */
  nodeName: string;
  datacenter: string;
  /**
   * `primary_datacenter` (default: `datacenter`). In a secondary, writes of ACL policies, roles, global
   * tokens and config entries are forwarded there.
   */
  primaryDatacenter?: string;
  /**
   * A secondary replicating global tokens (`acl.enable_token_replication`) reads them from its own tables;
   * without it, token reads and lists are answered by the primary, as in Consul. Default false.
   */
  tokenReplication?: boolean;
  config?: Partial<ApiConfig>;
  /** Wall clock in ms since the epoch; stamped into commands that need time. */
  now?: () => number;
  /** [0, 1); blocking-query jitter. */
  random?: () => number;
  /** New session IDs. */
  uuid?: () => string;
  logger?: Logger;
  /** The network auth-method logins use (Kubernetes TokenReview, JWKS); defaults to real HTTP(S). */
  authMethodIO?: AuthMethodIO;
  /** This agent's user-event log (gossip); absent, /v1/event/list is empty and a fire answers 500. */
  events?: EventBackend;
  /**
   * Known datacenters, nearest first (this one first): the WAN pool's view on servers. Absent: only this
   * datacenter (`/v1/catalog/datacenters`).
   */
  datacenters?: () => string[];
  /**
   * The servers' WAN coordinates per datacenter for `/v1/coordinate/datacenters`; absent, or undefined when
   * there is no WAN pool: this datacenter's servers with their LAN coordinates from the catalog.
   */
  coordinateDatacenters?: () => DatacenterCoordinatesJson[] | undefined;
  /**
   * Sends a request to a server of datacenter `dc` over the WAN and answers with its response; undefined
   * when no server of `dc` is known (the caller answers "No path to datacenter"). Absent: no WAN.
   */
  forwardDatacenter?: DatacenterForward;
  /**
   * Consul's `acl-bootstrap-reset` file (in the data directory; relative, so the current directory, in dev
   * mode): the reset index written there allows one more `PUT /v1/acl/bootstrap`. Absent: no reset.
   */
  aclBootstrapResetFile?: string;
  /**
   * The ACL replication status of this server (a secondary's leader runs the cycle); absent: replication
   * never runs here (the primary, client agents).
   */
  replication?: (stale: boolean) => Promise<ReplicationStatusJson>;
}

export type DatacenterForward = (dc: string, request: Request) => Promise<Response> | undefined;

/** One datacenter of `/v1/coordinate/datacenters`. */
export interface DatacenterCoordinatesJson {
  Datacenter: string;
  AreaID: string;
  Coordinates: {
    Node: string;
    Coord: { Vec: number[]; Error: number; Adjustment: number; Height: number };
  }[];
}
