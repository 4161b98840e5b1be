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

type RawObject = Record<string, unknown>;

function isObject(value: unknown): value is RawObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Moves deprecated keys to their current place (the current spelling wins when both are given) and returns
 * one warning per deprecated key used. Does not modify `raw`.
 */
export function rewriteLegacyKeys(raw: RawObject): { raw: RawObject; warnings: string[] } {
  const result = structuredClone(raw);
  const warnings: string[] = [];
  for (const [from, to] of RENAMED) {
    const value = take(result, from.split("."));
    if (value === undefined) continue;
    warnings.push(`'${from}' is deprecated; use '${to}' instead`);
    put(result, to.split("."), value);
  }
  return { raw: result, warnings };
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

function put(root: RawObject, path: readonly string[], value: unknown): void {
  const parent = objectAt(root, path.slice(0, -1), true);
  const key = path[path.length - 1]!;
  if (parent && !Object.hasOwn(parent, key)) parent[key] = value;
}
