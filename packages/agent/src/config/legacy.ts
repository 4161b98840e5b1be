/** Consul's older spellings, still accepted with a warning: old path → current path. */
const RENAMED: ReadonlyArray<readonly [string, string]> = [
  ["acl_master_token", "acl.tokens.initial_management"],
  ["acl_agent_master_token", "acl.tokens.agent_recovery"],
  ["acl_agent_token", "acl.tokens.agent"],
  ["acl_token", "acl.tokens.default"],
  ["acl_replication_token", "acl.tokens.replication"],
  ["acl_default_policy", "acl.default_policy"],
  ["acl_down_policy", "acl.down_policy"],
  ["acl_ttl", "acl.token_ttl"],
  ["acl_datacenter", "primary_datacenter"],
  ["enable_acl_replication", "acl.enable_token_replication"],
  ["acl.tokens.master", "acl.tokens.initial_management"],
  ["acl.tokens.agent_master", "acl.tokens.agent_recovery"],
  ["ui", "ui_config.enabled"],
  ["ui_dir", "ui_config.dir"],
  ["ui_content_path", "ui_config.content_path"],
];

/**
 * The top-level TLS keys Consul moved into `tls { ... }` in 1.12. As in Consul the `tls` block wins when both
 * are given; Cairn refuses the source when the two say different things (a setting that silently loses is a
 * certificate check that silently is not made).
 */
const TLS_RENAMED: ReadonlyArray<readonly [string, string]> = [
  ["ca_file", "tls.defaults.ca_file"],
  ["ca_path", "tls.defaults.ca_path"],
  ["cert_file", "tls.defaults.cert_file"],
  ["key_file", "tls.defaults.key_file"],
  ["tls_cipher_suites", "tls.defaults.tls_cipher_suites"],
  ["tls_min_version", "tls.defaults.tls_min_version"],
  ["verify_incoming", "tls.defaults.verify_incoming"],
  ["verify_incoming_https", "tls.https.verify_incoming"],
  ["verify_incoming_rpc", "tls.internal_rpc.verify_incoming"],
  ["verify_outgoing", "tls.defaults.verify_outgoing"],
  ["verify_server_hostname", "tls.internal_rpc.verify_server_hostname"],
];

/** Consul's pre-1.12 `tls_min_version` values. */
const OLD_TLS_VERSIONS: Readonly<Record<string, string>> = {
  tls10: "TLSv1_0",
  tls11: "TLSv1_1",
  tls12: "TLSv1_2",
  tls13: "TLSv1_3",
};

type RawObject = Record<string, unknown>;

function isObject(value: unknown): value is RawObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Moves deprecated keys to their current place (the current spelling wins when both are given) and returns
 * one warning per deprecated key used. Does not modify `raw`.
 */
export function rewriteLegacyKeys(raw: RawObject): {
  raw: RawObject;
  warnings: string[];
  conflicts: string[];
} {
  const result = structuredClone(raw);
  const warnings: string[] = [];
  const conflicts: string[] = [];
  for (const [from, to] of RENAMED) {
    const value = take(result, from.split("."));
    if (value === undefined) continue;
    warnings.push(`'${from}' is deprecated; use '${to}' instead`);
    put(result, to.split("."), value);
  }
  for (const [from, to] of TLS_RENAMED) {
    let value = take(result, from.split("."));
    if (value === undefined) continue;
    warnings.push(`'${from}' is deprecated; use '${to}' instead`);
    const version =
      from === "tls_min_version" && typeof value === "string" ? OLD_TLS_VERSIONS[value] : undefined;
    if (version !== undefined) {
      warnings.push(`'tls_min_version' value '${String(value)}' is deprecated; use '${version}' instead`);
      value = version;
    }
    const existing = put(result, to.split("."), value);
    if (existing !== undefined && String(existing) !== String(value))
      conflicts.push(
        `${from} (${JSON.stringify(value)}) conflicts with ${to} (${JSON.stringify(existing)}); keep only ${to}`,
      );
  }
  return { raw: result, warnings, conflicts };
}

/** The object at `path`, merging repeated HCL blocks (a list of objects) into one on the way. */
function objectAt(root: RawObject, path: readonly string[], create: boolean): RawObject | undefined {
  let node = root;
  for (const key of path) {
    let next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (Array.isArray(next) && next.length > 0 && next.every(isObject)) next = Object.assign({}, ...next);
    if (next === undefined && create) next = {};
    if (!isObject(next)) return undefined;
    node[key] = next;
    node = next;
  }
  return node;
}

function take(root: RawObject, path: readonly string[]): unknown {
  const parent = objectAt(root, path.slice(0, -1), false);
  const key = path[path.length - 1]!;
  if (!parent || !Object.hasOwn(parent, key)) return undefined;
  const value = parent[key];
  delete parent[key];
  return value;
}

/** Sets `path` unless it is already set; returns the value already there, if any. */
function put(root: RawObject, path: readonly string[], value: unknown): unknown {
  const parent = objectAt(root, path.slice(0, -1), true);
  const key = path[path.length - 1]!;
  if (parent && !Object.hasOwn(parent, key)) parent[key] = value;
  else return parent?.[key];
  return undefined;
}
