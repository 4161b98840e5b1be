import { z } from "zod";
import {
  booleanField,
  definitionList,
  durationField,
  enumField,
  integerField,
  numberField,
  portField,
  positiveDurationField,
  requiredStringField,
  section,
  stringField,
  stringListField,
  stringMapField,
} from "./fields.js";

const count = integerField(0, Number.MAX_SAFE_INTEGER, "expected a non-negative integer");
const positive = integerField(1, Number.MAX_SAFE_INTEGER, "expected a positive integer");

/** One `tls { ... }` stanza (Consul 1.12+): `defaults`, `internal_rpc`, `https` and `grpc` share these keys. */
const tlsStanza = {
  ca_file: stringField,
  ca_path: stringField,
  cert_file: stringField,
  key_file: stringField,
  tls_min_version: stringField,
  tls_cipher_suites: stringField,
  verify_incoming: booleanField,
  verify_outgoing: booleanField,
};

/** Service and check definitions stay in Consul's JSON shape; these are the fields checked at load time. */
const checkDefinition = { name: stringField, id: stringField };
const serviceDefinition = {
  name: requiredStringField,
  id: stringField,
  port: portField,
  tags: stringListField,
  checks: definitionList(checkDefinition),
};

/**
 * The configuration keys Cairn reads, with Consul's names (one source: a file, -hcl fragment, or the flags).
 * Deprecated spellings are rewritten before this schema sees them (see legacy.ts); keys Consul has and Cairn
 * does not are removed with a warning (see unsupported.ts).
 */
export const configSourceSchema = z.strictObject({
  node_name: stringField,
  node_id: stringField,
  datacenter: stringField,
  primary_datacenter: stringField,
  data_dir: stringField,
  server: booleanField,
  bootstrap: booleanField,
  bootstrap_expect: integerField(0, 1_000, "expected a positive integer"),
  bind_addr: stringField,
  advertise_addr: stringField,
  advertise_addr_wan: stringField,
  client_addr: stringField,
  ports: section({
    http: portField,
    https: portField,
    grpc: portField,
    dns: portField,
    server: portField,
    serf_lan: portField,
    serf_wan: portField,
  }),
  tls: section({
    defaults: section(tlsStanza),
    internal_rpc: section({ ...tlsStanza, verify_server_hostname: booleanField }),
    https: section(tlsStanza),
    // Parsed so a Consul configuration carries over; Cairn serves no gRPC.
    grpc: section({ ...tlsStanza, use_auto_cert: booleanField }),
  }),
  addresses: section({ http: stringField, https: stringField, dns: stringField, grpc: stringField }),
  unix_sockets: section({ mode: stringField, user: stringField, group: stringField }),
  retry_join: stringListField,
  retry_join_wan: stringListField,
  retry_interval: durationField,
  retry_max: count,
  retry_interval_wan: durationField,
  retry_max_wan: count,
  start_join: stringListField,
  log_level: enumField(["trace", "debug", "info", "warn", "error"], { err: "error", warning: "warn" }),
  log_json: booleanField,
  enable_debug: booleanField,
  pid_file: stringField,
  session_ttl_min: durationField,
  acl: section({
    enabled: booleanField,
    default_policy: enumField(["allow", "deny"]),
    down_policy: enumField(["allow", "deny", "extend-cache", "async-cache"]),
    enable_token_persistence: booleanField,
    enable_key_list_policy: booleanField,
    enable_token_replication: booleanField,
    // Cairn's own, for tests and benchmarks: the replication cycle (spec 1: about 30 s, first run about 60 s
    // after a leader election) and the local apply rate (100 per second).
    replication_interval: durationField,
    replication_initial_delay: durationField,
    replication_apply_rate: positive,
    token_ttl: durationField,
    policy_ttl: durationField,
    role_ttl: durationField,
    tokens: section({
      initial_management: stringField,
      agent: stringField,
      agent_recovery: stringField,
      default: stringField,
      replication: stringField,
    }),
  }),
  enable_script_checks: booleanField,
  enable_local_script_checks: booleanField,
  encrypt: stringField,
  ui_config: section({ enabled: booleanField, dir: stringField, content_path: stringField }),
  telemetry: section({ prometheus_retention_time: durationField, disable_hostname: booleanField }),
  performance: section({ raft_multiplier: integerField(1, 10, "expected an integer from 1 to 10") }),
  raft_protocol: integerField(3, 3, "expected 3, the only Raft protocol version Cairn speaks"),
  raft_snapshot_threshold: integerField(1, Number.MAX_SAFE_INTEGER, "expected a positive integer"),
  raft_snapshot_interval: positiveDurationField,
  raft_trailing_logs: count,
  node_meta: stringMapField,
  services: definitionList(serviceDefinition),
  service: definitionList(serviceDefinition),
  checks: definitionList(checkDefinition),
  check: definitionList(checkDefinition),
  leave_on_terminate: booleanField,
  skip_leave_on_interrupt: booleanField,
  rejoin_after_leave: booleanField,
  limits: section({
    http_max_conns_per_client: positive,
    rpc_max_conns_per_client: positive,
    rpc_rate: numberField,
    rpc_max_burst: positive,
    kv_max_value_size: positive,
    txn_max_req_len: positive,
  }),
  autopilot: section({
    cleanup_dead_servers: booleanField,
    last_contact_threshold: durationField,
    max_trailing_logs: count,
    min_quorum: count,
    server_stabilization_time: durationField,
    // Cairn's own: how long a server stays failed or left before dead server cleanup removes it.
    dead_server_cleanup_threshold: durationField,
  }),
  disable_update_check: booleanField,
  domain: stringField,
  alt_domain: stringField,
  recursors: stringListField,
  dns_config: section({
    allow_stale: booleanField,
    max_stale: durationField,
    node_ttl: durationField,
    service_ttl: z
      .record(z.string(), durationField.unwrap(), {
        error: 'expected an object of durations, such as { "*" = "5s" }',
      })
      .optional(),
    udp_answer_limit: positive,
    a_record_limit: count,
    use_cache: booleanField,
    cache_max_age: durationField,
    only_passing: booleanField,
    enable_truncate: booleanField,
    disable_compression: booleanField,
    recursor_timeout: durationField,
  }),
});

/** One source after validation: every key optional, values decoded (durations in milliseconds). */
export type ConfigSourceValues = z.output<typeof configSourceSchema>;
