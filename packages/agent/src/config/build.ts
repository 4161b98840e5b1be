import type { ConfigSourceValues } from "./schema.js";
import { ConfigError } from "./source.js";
import { resolveTls } from "./tls.js";
import type { AgentConfig } from "./types.js";
import { checkUnixAddresses, unixSocketSettings } from "./unix-sockets.js";

/** What `-dev` puts under every other source, as Consul's dev mode does (ACLs stay off). */
export const DEV_MODE_SOURCE: Readonly<Record<string, unknown>> = {
  bind_addr: "127.0.0.1",
  client_addr: "127.0.0.1",
  server: true,
  bootstrap: true,
  ui_config: { enabled: true },
  log_level: "debug",
  enable_debug: true,
  performance: { raft_multiplier: 1 },
};

export interface BuildContext {
  readonly dev: boolean;
  /** Default node name. */
  readonly hostname: string;
  readonly clockOffsetMs: number;
  readonly configFiles: readonly string[];
}

const DEPLOYMENT_TABLE = "See https://www.consul.io/docs/internals/consensus.html#deployment-table";
const DATACENTER_NAME = /^[a-z0-9_-]+$/;
const DNS_LABEL = /^[A-Za-z0-9-]{1,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Applies Consul's defaults and cross-key rules to the merged sources. Pure: no I/O, no clock.
 * Throws ConfigError naming the key; returns warnings in Consul's words where Consul has them.
 */
export function buildAgentConfig(
  v: ConfigSourceValues,
  context: BuildContext,
): { config: AgentConfig; warnings: string[] } {
  const warnings: string[] = [];
  const { dev } = context;
  const server = v.server ?? false;
  let bootstrap = v.bootstrap ?? false;
  let bootstrapExpect = v.bootstrap_expect ?? 0;

  if (bootstrapExpect === 1) {
    bootstrap = true;
    bootstrapExpect = 0;
    warnings.push("BootstrapExpect is set to 1; this is the same as Bootstrap mode.");
  }
  if (bootstrapExpect > 0 && dev) fail("bootstrap_expect: 'bootstrap_expect > 0' is not allowed in dev mode");
  if (bootstrapExpect > 0 && bootstrap) {
    fail(
      "bootstrap_expect: 'bootstrap_expect > 0' and 'bootstrap = true' are mutually exclusive (-bootstrap-expect and -bootstrap)",
    );
  }
  if (bootstrapExpect > 0 && !server)
    fail("bootstrap_expect: 'bootstrap_expect > 0' requires 'server = true'");
  if (bootstrap && !server) fail("bootstrap: 'bootstrap = true' requires 'server = true'");
  const dataDir = v.data_dir === "" ? undefined : v.data_dir;
  if (server && !dev && dataDir === undefined)
    fail("data_dir: a server needs a data directory (data_dir or -data-dir)");

  if (server && !dev && bootstrapExpect === 2) {
    warnings.push(
      `bootstrap_expect = 2: A cluster with 2 servers will provide no failure tolerance. ${DEPLOYMENT_TABLE}`,
    );
  }
  if (server && bootstrapExpect > 2 && bootstrapExpect % 2 === 0) {
    warnings.push(
      `bootstrap_expect is even number: A cluster with an even number of servers does not achieve optimum fault tolerance. ${DEPLOYMENT_TABLE}`,
    );
  }
  if (server && !dev && bootstrap) warnings.push("bootstrap = true: do not enable unless necessary");
  if (server && bootstrapExpect > 1)
    warnings.push(`bootstrap_expect > 0: expecting ${bootstrapExpect} servers`);

  const datacenter = datacenterName("datacenter", v.datacenter ?? "dc1");
  const primaryDatacenter = datacenterName("primary_datacenter", v.primary_datacenter ?? datacenter);

  const nodeName = v.node_name ?? context.hostname;
  if (nodeName === "") fail("node_name: cannot be empty (set node_name or -node)");
  if (!DNS_LABEL.test(nodeName)) {
    warnings.push(
      `Node name "${nodeName}" will not be discoverable via DNS due to invalid characters. Valid characters include all alpha-numerics and dashes.`,
    );
  }
  if (v.node_id !== undefined && !UUID.test(v.node_id))
    fail(`node_id: expected a UUID, got ${JSON.stringify(v.node_id)}`);
  if (v.encrypt !== undefined && !isGossipKey(v.encrypt))
    fail("encrypt: expected a base64-encoded key of 16, 24 or 32 bytes");

  const clientAddr = v.client_addr ?? "127.0.0.1";
  const ports = v.ports ?? {};
  const addresses = v.addresses ?? {};
  const acl = v.acl ?? {};
  const tokens = acl.tokens ?? {};
  const limits = v.limits ?? {};
  const autopilot = v.autopilot ?? {};
  const dns = v.dns_config ?? {};
  const domain = v.domain ?? "consul.";

  checkUnixAddresses({
    http: addresses.http ?? clientAddr,
    https: addresses.https ?? clientAddr,
    dns: addresses.dns ?? clientAddr,
  });

  const config: AgentConfig = {
    dev,
    server,
    bootstrap,
    bootstrapExpect,
    nodeName,
    nodeId: v.node_id?.toLowerCase(),
    datacenter,
    primaryDatacenter,
    dataDir,
    bindAddr: v.bind_addr ?? "0.0.0.0",
    advertiseAddr: v.advertise_addr,
    advertiseAddrWan: v.advertise_addr_wan,
    clientAddr,
    ports: {
      http: ports.http ?? 8500,
      https: ports.https ?? -1,
      grpc: ports.grpc ?? -1,
      dns: ports.dns ?? 8600,
      server: serverPort("ports.server", ports.server ?? 8300),
      serfLan: serverPort("ports.serf_lan", ports.serf_lan ?? 8301),
      serfWan: ports.serf_wan ?? 8302,
    },
    addresses: {
      http: addresses.http ?? clientAddr,
      https: addresses.https ?? clientAddr,
      dns: addresses.dns ?? clientAddr,
      grpc: addresses.grpc ?? clientAddr,
    },
    unixSockets: unixSocketSettings(v.unix_sockets),
    retryJoin: v.retry_join ?? [],
    retryJoinWan: v.retry_join_wan ?? [],
    retryIntervalMs: v.retry_interval ?? 30_000,
    retryMax: v.retry_max ?? 0,
    retryIntervalWanMs: v.retry_interval_wan ?? 30_000,
    retryMaxWan: v.retry_max_wan ?? 0,
    startJoin: v.start_join ?? [],
    logLevel: v.log_level ?? "info",
    logJson: v.log_json ?? false,
    enableDebug: v.enable_debug ?? false,
    pidFile: v.pid_file,
    sessionTtlMinMs: v.session_ttl_min ?? 10_000,
    acl: {
      enabled: acl.enabled ?? false,
      defaultPolicy: acl.default_policy ?? "allow",
      downPolicy: acl.down_policy ?? "extend-cache",
      enableTokenPersistence: acl.enable_token_persistence ?? false,
      enableKeyListPolicy: acl.enable_key_list_policy ?? false,
      enableTokenReplication: acl.enable_token_replication ?? false,
      replication: {
        intervalMs: acl.replication_interval ?? 30_000,
        initialDelayMs: acl.replication_initial_delay ?? 60_000,
        applyRate: acl.replication_apply_rate ?? 100,
      },
      tokenTtlMs: acl.token_ttl ?? 30_000,
      policyTtlMs: acl.policy_ttl ?? 30_000,
      roleTtlMs: acl.role_ttl ?? 30_000,
      tokens: {
        initialManagement: tokens.initial_management,
        agent: tokens.agent,
        agentRecovery: tokens.agent_recovery,
        default: tokens.default,
        replication: tokens.replication,
      },
    },
    enableScriptChecks: v.enable_script_checks ?? false,
    enableLocalScriptChecks: v.enable_local_script_checks ?? false,
    encrypt: v.encrypt,
    ui: {
      enabled: v.ui_config?.enabled ?? false,
      dir: v.ui_config?.dir,
      contentPath: v.ui_config?.content_path ?? "/ui/",
    },
    telemetry: {
      prometheusRetentionMs: v.telemetry?.prometheus_retention_time ?? 0,
      disableHostname: v.telemetry?.disable_hostname ?? false,
    },
    // Consul's default is 5 (and it recommends 1 on dedicated hardware). 3 keeps a leader that stalled on a
    // loaded host in office, and an election after a hang within the 7 s a request is held; a leader that
    // crashed is replaced at once at any value (OPERATIONS.md).
    performance: { raftMultiplier: v.performance?.raft_multiplier ?? 3 },
    raftProtocol: v.raft_protocol ?? 3,
    // Consul's defaults: a snapshot once 16,384 entries were applied since the last, checked every 30-60 s,
    // keeping 10,240 entries behind it for slow followers.
    raftSnapshotThreshold: v.raft_snapshot_threshold ?? 16_384,
    raftSnapshotIntervalMs: v.raft_snapshot_interval ?? 30_000,
    raftTrailingLogs: v.raft_trailing_logs ?? 10_240,
    nodeMeta: v.node_meta ?? {},
    services: v.services ?? [],
    checks: v.checks ?? [],
    leaveOnTerminate: v.leave_on_terminate ?? !server,
    skipLeaveOnInterrupt: v.skip_leave_on_interrupt ?? server,
    rejoinAfterLeave: v.rejoin_after_leave ?? false,
    limits: {
      httpMaxConnsPerClient: limits.http_max_conns_per_client ?? 200,
      rpcMaxConnsPerClient: limits.rpc_max_conns_per_client ?? 100,
      rpcRate: limits.rpc_rate,
      rpcMaxBurst: limits.rpc_max_burst ?? 1000,
      kvMaxValueSize: limits.kv_max_value_size ?? 512 * 1024,
      txnMaxReqLen: limits.txn_max_req_len ?? 512 * 1024,
    },
    autopilot: {
      cleanupDeadServers: autopilot.cleanup_dead_servers ?? true,
      lastContactThresholdMs: autopilot.last_contact_threshold ?? 200,
      maxTrailingLogs: autopilot.max_trailing_logs ?? 250,
      minQuorum: autopilot.min_quorum ?? 0,
      serverStabilizationTimeMs: autopilot.server_stabilization_time ?? 10_000,
      deadServerCleanupThresholdMs: autopilot.dead_server_cleanup_threshold ?? 0,
    },
    disableUpdateCheck: v.disable_update_check ?? false,
    domain: domain.endsWith(".") ? domain : `${domain}.`,
    altDomain: v.alt_domain,
    recursors: v.recursors ?? [],
    dnsConfig: {
      allowStale: dns.allow_stale ?? true,
      maxStaleMs: dns.max_stale ?? 87_600 * 3_600_000,
      nodeTtlMs: dns.node_ttl ?? 0,
      serviceTtlMs: dns.service_ttl ?? {},
      udpAnswerLimit: dns.udp_answer_limit ?? 3,
      aRecordLimit: dns.a_record_limit ?? 0,
      useCache: dns.use_cache ?? false,
      cacheMaxAgeMs: dns.cache_max_age ?? 0,
      onlyPassing: dns.only_passing ?? false,
      enableTruncate: dns.enable_truncate ?? false,
      disableCompression: dns.disable_compression ?? false,
      recursorTimeoutMs: dns.recursor_timeout ?? 2_000,
    },
    tls: resolveTls(v, ports.https ?? -1),
    clockOffsetMs: context.clockOffsetMs,
    configFiles: context.configFiles,
  };
  return { config: deepFreeze(config), warnings };
}

function fail(message: string): never {
  throw new ConfigError(message);
}

/** Consul lowercases datacenter names and allows only [a-z0-9_-]. */
function datacenterName(key: string, name: string): string {
  const lower = name.toLowerCase();
  if (lower === "") fail(`${key}: cannot be empty`);
  if (!DATACENTER_NAME.test(lower))
    fail(`${key}: invalid name ${JSON.stringify(name)}; use only letters, digits, '-' and '_'`);
  return lower;
}

/** Cluster ports cannot be disabled. */
function serverPort(key: string, port: number): number {
  if (port < 1) fail(`${key}: expected a port number from 1 to 65535, got ${port}`);
  return port;
}

function isGossipKey(key: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || key.length % 4 !== 0) return false;
  return [16, 24, 32].includes(Buffer.from(key, "base64").length);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
