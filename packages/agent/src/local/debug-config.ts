import { formatDuration } from "@cairn/duration";
import type { AgentConfig } from "../config/index.js";
import { hostPort } from "../server/addresses.js";
import { CONSUL_API_VERSION } from "./version.js";

/** What the configuration alone does not say: the addresses and ports the agent really uses. */
export interface DebugConfigFacts {
  nodeId: string;
  /** The LAN address advertised (gossip, RPC, catalog). */
  advertiseAddr: string;
  /** The LAN gossip port in use (a configured 0 becomes the port the OS gave). */
  serfPortLan: number;
  /** The node's tagged addresses, as the catalog has them (lan, lan_ipv4, wan, wan_ipv4). */
  taggedAddresses: Readonly<Record<string, string>>;
}

const HIDDEN = "hidden";
const ms = (value: number) => formatDuration(BigInt(Math.round(value * 1e6)));
const tcp = (host: string, port: number) => `tcp://${hostPort(host, port)}`;
const hidden = (secret: string | undefined) => (secret ? HIDDEN : "");

/** Consul lists a service or check definition with its ACL token hidden. */
function hideToken(def: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(def)) out[k] = k.toLowerCase() === "token" ? HIDDEN : v;
  return out;
}

/**
 * `/v1/agent/self`'s DebugConfig: the runtime configuration under Consul's RuntimeConfig names, as its
 * sanitized JSON shows them (durations as Go duration strings, addresses as `tcp://host:port`, secrets
 * `hidden`). Tools read it by those names (SerfAdvertiseAddrLAN, GRPCPort, ConnectEnabled...); Consul says
 * the format may change, so only what Cairn has is listed.
 */
export function debugConfig(config: AgentConfig, facts: DebugConfigFacts): Record<string, unknown> {
  const { acl, ports } = config;
  const advertiseWan = config.advertiseAddrWan ?? facts.advertiseAddr;
  const clientAddrs = config.clientAddr.split(/\s+/).filter((a) => a !== "");
  const listen = (addresses: string, port: number) =>
    port < 0
      ? []
      : addresses
          .split(/\s+/)
          .filter((a) => a !== "")
          .map((a) => (a.startsWith("unix://") ? a : tcp(a, port)));
  return {
    ACLEnableKeyListPolicy: acl.enableKeyListPolicy,
    ACLInitialManagementToken: hidden(acl.tokens.initialManagement),
    ACLResolverSettings: {
      ACLDefaultPolicy: acl.defaultPolicy,
      ACLDownPolicy: acl.downPolicy,
      ACLPolicyTTL: ms(acl.policyTtlMs),
      ACLRoleTTL: ms(acl.roleTtlMs),
      ACLTokenTTL: ms(acl.tokenTtlMs),
      ACLsEnabled: acl.enabled,
      Datacenter: config.datacenter,
      NodeName: config.nodeName,
    },
    ACLTokenReplication: acl.enableTokenReplication,
    ACLTokens: {
      ACLAgentRecoveryToken: hidden(acl.tokens.agentRecovery),
      ACLAgentToken: hidden(acl.tokens.agent),
      ACLDefaultToken: hidden(acl.tokens.default),
      ACLReplicationToken: hidden(acl.tokens.replication),
      DataDir: config.dataDir ?? "",
      EnablePersistence: acl.enableTokenPersistence,
    },
    ACLsEnabled: acl.enabled,
    AdvertiseAddrLAN: facts.advertiseAddr,
    AdvertiseAddrWAN: advertiseWan,
    AutopilotCleanupDeadServers: config.autopilot.cleanupDeadServers,
    AutopilotLastContactThreshold: ms(config.autopilot.lastContactThresholdMs),
    AutopilotMaxTrailingLogs: config.autopilot.maxTrailingLogs,
    AutopilotMinQuorum: config.autopilot.minQuorum,
    AutopilotServerStabilizationTime: ms(config.autopilot.serverStabilizationTimeMs),
    BindAddr: config.bindAddr,
    Bootstrap: config.bootstrap,
    BootstrapExpect: config.bootstrapExpect,
    Checks: config.checks.map(hideToken),
    ClientAddrs: clientAddrs,
    ConnectEnabled: false,
    DNSAddrs: listen(config.addresses.dns, ports.dns).flatMap((a) => [a, a.replace(/^tcp:/, "udp:")]),
    DNSAllowStale: config.dnsConfig.allowStale,
    DNSAltDomain: config.altDomain ?? "",
    DNSDomain: config.domain,
    DNSEnableTruncate: config.dnsConfig.enableTruncate,
    DNSMaxStale: ms(config.dnsConfig.maxStaleMs),
    DNSNodeTTL: ms(config.dnsConfig.nodeTtlMs),
    DNSOnlyPassing: config.dnsConfig.onlyPassing,
    DNSPort: ports.dns,
    DNSRecursorTimeout: ms(config.dnsConfig.recursorTimeoutMs),
    DNSRecursors: [...config.recursors],
    DNSServiceTTL: Object.fromEntries(
      Object.entries(config.dnsConfig.serviceTtlMs).map(([name, ttl]) => [name, ms(ttl)]),
    ),
    DNSUDPAnswerLimit: config.dnsConfig.udpAnswerLimit,
    DataDir: config.dataDir ?? "",
    Datacenter: config.datacenter,
    DevMode: config.dev,
    DisableUpdateCheck: config.disableUpdateCheck,
    EnableDebug: config.enableDebug,
    EnableLocalScriptChecks: config.enableLocalScriptChecks,
    EnableRemoteScriptChecks: config.enableScriptChecks,
    EncryptKey: hidden(config.encrypt),
    GRPCAddrs: listen(config.addresses.grpc, ports.grpc),
    GRPCPort: ports.grpc,
    GRPCTLSPort: -1,
    HTTPAddrs: listen(config.addresses.http, ports.http),
    HTTPMaxConnsPerClient: config.limits.httpMaxConnsPerClient,
    HTTPPort: ports.http,
    HTTPSAddrs: listen(config.addresses.https, ports.https),
    HTTPSPort: ports.https,
    KVMaxValueSize: config.limits.kvMaxValueSize,
    LeaveOnTerm: config.leaveOnTerminate,
    Logging: { LogJSON: config.logJson, LogLevel: config.logLevel.toUpperCase() },
    NodeID: facts.nodeId,
    NodeMeta: { ...config.nodeMeta },
    NodeName: config.nodeName,
    PidFile: config.pidFile ?? "",
    PrimaryDatacenter: config.primaryDatacenter,
    RPCAdvertiseAddr: tcp(facts.advertiseAddr, ports.server),
    RPCBindAddr: tcp(config.bindAddr, ports.server),
    RPCMaxBurst: config.limits.rpcMaxBurst,
    RPCMaxConnsPerClient: config.limits.rpcMaxConnsPerClient,
    // Unlimited shows as -1, Consul's default `limits.rpc_rate`.
    RPCRateLimit: config.limits.rpcRate ?? -1,
    RaftProtocol: config.raftProtocol,
    RaftSnapshotInterval: ms(config.raftSnapshotIntervalMs),
    RaftSnapshotThreshold: config.raftSnapshotThreshold,
    RaftTrailingLogs: config.raftTrailingLogs,
    RejoinAfterLeave: config.rejoinAfterLeave,
    RetryJoinIntervalLAN: ms(config.retryIntervalMs),
    RetryJoinIntervalWAN: ms(config.retryIntervalWanMs),
    RetryJoinLAN: [...config.retryJoin],
    RetryJoinMaxAttemptsLAN: config.retryMax,
    RetryJoinMaxAttemptsWAN: config.retryMaxWan,
    RetryJoinWAN: [...config.retryJoinWan],
    Revision: "cairn",
    SerfAdvertiseAddrLAN: tcp(facts.advertiseAddr, facts.serfPortLan),
    SerfAdvertiseAddrWAN: config.server && ports.serfWan >= 0 ? tcp(advertiseWan, ports.serfWan) : "",
    SerfBindAddrLAN: tcp(config.bindAddr, facts.serfPortLan),
    SerfBindAddrWAN: config.server && ports.serfWan >= 0 ? tcp(config.bindAddr, ports.serfWan) : "",
    SerfPortLAN: facts.serfPortLan,
    SerfPortWAN: config.server ? ports.serfWan : -1,
    ServerMode: config.server,
    ServerPort: ports.server,
    Services: config.services.map(hideToken),
    SessionTTLMin: ms(config.sessionTtlMinMs),
    SkipLeaveOnInt: config.skipLeaveOnInterrupt,
    StartJoinAddrsLAN: [...config.startJoin],
    StartJoinAddrsWAN: [],
    TaggedAddresses: { ...facts.taggedAddresses },
    Telemetry: {
      DisableHostname: config.telemetry.disableHostname,
      PrometheusOpts: { Expiration: ms(config.telemetry.prometheusRetentionMs) },
    },
    TxnMaxReqLen: config.limits.txnMaxReqLen,
    UIConfig: {
      ContentPath: config.ui.contentPath,
      Dir: config.ui.dir ?? "",
      Enabled: config.ui.enabled,
    },
    Version: CONSUL_API_VERSION,
    VersionPrerelease: "",
  };
}
