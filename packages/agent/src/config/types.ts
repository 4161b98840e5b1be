import type { UnixSocketSettings } from "./unix-sockets.js";

/** The agent's resolved configuration: defaults, dev mode, files, -hcl fragments and flags merged and checked. */
export interface AgentConfig {
  /** `-dev`: one in-memory server, nothing persisted. */
  readonly dev: boolean;
  readonly server: boolean;
  readonly bootstrap: boolean;
  /** 0 when not bootstrapping by expectation. */
  readonly bootstrapExpect: number;
  readonly nodeName: string;
  /** Lowercased UUID when configured; otherwise the agent generates and persists one. */
  readonly nodeId: string | undefined;
  readonly datacenter: string;
  readonly primaryDatacenter: string;
  /** Undefined only in dev mode or on a client without one. */
  readonly dataDir: string | undefined;
  readonly bindAddr: string;
  /** Undefined: the agent picks an address (the bind address unless that is 0.0.0.0). */
  readonly advertiseAddr: string | undefined;
  readonly advertiseAddrWan: string | undefined;
  /** Space-separated list, as Consul allows. */
  readonly clientAddr: string;
  readonly ports: AgentPorts;
  /** Listen addresses per interface, defaulting to clientAddr. */
  readonly addresses: {
    readonly http: string;
    readonly https: string;
    readonly dns: string;
    readonly grpc: string;
  };
  /** Owner and mode of the unix sockets the HTTP API listens on (`addresses.http = "unix:///path"`). */
  readonly unixSockets: UnixSocketSettings;
  readonly retryJoin: readonly string[];
  /** Servers: WAN pool addresses of servers in other datacenters to join, retried like retry_join. */
  readonly retryJoinWan: readonly string[];
  readonly retryIntervalMs: number;
  /** 0: retry forever. */
  readonly retryMax: number;
  /** retry_join_wan's own pace and limit (Consul's retry_interval_wan, retry_max_wan). */
  readonly retryIntervalWanMs: number;
  readonly retryMaxWan: number;
  readonly startJoin: readonly string[];
  readonly logLevel: LogLevel;
  readonly logJson: boolean;
  readonly enableDebug: boolean;
  readonly pidFile: string | undefined;
  readonly sessionTtlMinMs: number;
  readonly acl: AclSettings;
  readonly enableScriptChecks: boolean;
  readonly enableLocalScriptChecks: boolean;
  /** Base64 gossip key. */
  readonly encrypt: string | undefined;
  readonly ui: { readonly enabled: boolean; readonly dir: string | undefined; readonly contentPath: string };
  readonly telemetry: { readonly prometheusRetentionMs: number; readonly disableHostname: boolean };
  readonly performance: { readonly raftMultiplier: number };
  readonly raftProtocol: number;
  /** Applied entries between snapshots (raft_snapshot_threshold). */
  readonly raftSnapshotThreshold: number;
  /** How often the threshold is checked, at a random time in [interval, 2 × interval) (raft_snapshot_interval). */
  readonly raftSnapshotIntervalMs: number;
  /** Entries a compaction keeps behind the snapshot (raft_trailing_logs). */
  readonly raftTrailingLogs: number;
  readonly nodeMeta: Readonly<Record<string, string>>;
  /** Service definitions from `service`/`services`, in Consul's JSON shape; the local-services module reads them. */
  readonly services: readonly Readonly<Record<string, unknown>>[];
  /** Check definitions from `check`/`checks`, in Consul's JSON shape. */
  readonly checks: readonly Readonly<Record<string, unknown>>[];
  readonly leaveOnTerminate: boolean;
  readonly skipLeaveOnInterrupt: boolean;
  readonly rejoinAfterLeave: boolean;
  readonly limits: AgentLimits;
  readonly autopilot: AutopilotSettings;
  readonly disableUpdateCheck: boolean;
  /** DNS domain, always ending in a dot (`consul.`). */
  readonly domain: string;
  readonly altDomain: string | undefined;
  readonly recursors: readonly string[];
  readonly dnsConfig: DnsSettings;
  /** TLS per interface, resolved from `tls { ... }` (and the older top-level keys) with Consul's rules. */
  readonly tls: TlsSettings;
  /** Test-only (`-clock-offset`): added to the agent's clock. */
  readonly clockOffsetMs: number;
  /** The configuration files read, in the order applied. */
  readonly configFiles: readonly string[];
}

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error";

/** -1 disables an interface. */
export interface AgentPorts {
  readonly http: number;
  readonly https: number;
  readonly grpc: number;
  readonly dns: number;
  readonly server: number;
  readonly serfLan: number;
  readonly serfWan: number;
}

export interface AclSettings {
  readonly enabled: boolean;
  readonly defaultPolicy: "allow" | "deny";
  readonly downPolicy: "allow" | "deny" | "extend-cache" | "async-cache";
  readonly enableTokenPersistence: boolean;
  readonly enableKeyListPolicy: boolean;
  /** `acl.enable_token_replication`: a secondary replicates global tokens too, and may create local ones. */
  readonly enableTokenReplication: boolean;
  /** The replication cycle in a secondary (Cairn's own knobs; defaults from spec 1). */
  readonly replication: {
    readonly intervalMs: number;
    readonly initialDelayMs: number;
    /** Local updates per second. */
    readonly applyRate: number;
  };
  readonly tokenTtlMs: number;
  readonly policyTtlMs: number;
  readonly roleTtlMs: number;
  readonly tokens: {
    readonly initialManagement: string | undefined;
    readonly agent: string | undefined;
    readonly agentRecovery: string | undefined;
    readonly default: string | undefined;
    readonly replication: string | undefined;
  };
}

export interface AgentLimits {
  readonly httpMaxConnsPerClient: number;
  readonly rpcMaxConnsPerClient: number;
  /** Requests per second; undefined is unlimited, Consul's default. */
  readonly rpcRate: number | undefined;
  readonly rpcMaxBurst: number;
  readonly kvMaxValueSize: number;
  readonly txnMaxReqLen: number;
}

export interface AutopilotSettings {
  readonly cleanupDeadServers: boolean;
  readonly lastContactThresholdMs: number;
  readonly maxTrailingLogs: number;
  readonly minQuorum: number;
  readonly serverStabilizationTimeMs: number;
  /** Cairn-only: a server failed or left this long is removed (0: at the next check, as Consul does). */
  readonly deadServerCleanupThresholdMs: number;
}

export interface DnsSettings {
  readonly allowStale: boolean;
  readonly maxStaleMs: number;
  readonly nodeTtlMs: number;
  /** Per service name (`*` for all), as Consul's `service_ttl`. */
  readonly serviceTtlMs: Readonly<Record<string, number>>;
  readonly udpAnswerLimit: number;
  /** At most this many A/AAAA records in any answer; 0: no limit. */
  readonly aRecordLimit: number;
  /** Answers may come from reads this agent made up to `cacheMaxAgeMs` ago (1 s when 0). */
  readonly useCache: boolean;
  readonly cacheMaxAgeMs: number;
  readonly onlyPassing: boolean;
  readonly enableTruncate: boolean;
  /** `disable_compression`: owner names written whole instead of as pointers. */
  readonly disableCompression: boolean;
  readonly recursorTimeoutMs: number;
}

export type TlsVersion = "TLSv1_0" | "TLSv1_1" | "TLSv1_2" | "TLSv1_3";

/** One interface's TLS settings, each key taken from its own stanza or from `tls.defaults`. */
export interface TlsStanzaSettings {
  readonly caFile: string | undefined;
  readonly caPath: string | undefined;
  readonly certFile: string | undefined;
  readonly keyFile: string | undefined;
  readonly verifyIncoming: boolean;
  readonly verifyOutgoing: boolean;
  readonly minVersion: TlsVersion;
  /** OpenSSL names; empty: OpenSSL's defaults. */
  readonly cipherSuites: readonly string[];
  /** The configuration key each file setting came from, for messages about the file. */
  readonly keys: {
    readonly caFile: string;
    readonly caPath: string;
    readonly certFile: string;
    readonly keyFile: string;
  };
}

export interface TlsSettings {
  /** The server RPC port (Raft, snapshots, the client-agent tunnel) and the connections agents make to it. */
  readonly internalRpc: TlsStanzaSettings & { readonly verifyServerHostname: boolean };
  readonly https: TlsStanzaSettings;
}
