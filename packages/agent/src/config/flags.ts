import { nanosToMillis, parseGoDuration } from "./duration.js";
import { parseGoBoolean } from "./fields.js";
import { ConfigError, type ConfigFormat } from "./source.js";

/**
 * How each flag lands in the configuration: most set a config key (dotted path, Consul's name), decoded later
 * by the same schema as files; a few steer loading itself.
 */
type FlagSpec =
  | { readonly kind: "bool" | "value" | "list" | "meta"; readonly key: string }
  | { readonly kind: "dev" | "config-path" | "config-format" | "hcl" | "clock-offset" };

const FLAGS: ReadonlyMap<string, FlagSpec> = new Map<string, FlagSpec>([
  ["advertise", { kind: "value", key: "advertise_addr" }],
  ["advertise-wan", { kind: "value", key: "advertise_addr_wan" }],
  ["bind", { kind: "value", key: "bind_addr" }],
  ["bootstrap", { kind: "bool", key: "bootstrap" }],
  ["bootstrap-expect", { kind: "value", key: "bootstrap_expect" }],
  ["client", { kind: "value", key: "client_addr" }],
  ["clock-offset", { kind: "clock-offset" }],
  ["config-dir", { kind: "config-path" }],
  ["config-file", { kind: "config-path" }],
  ["config-format", { kind: "config-format" }],
  ["data-dir", { kind: "value", key: "data_dir" }],
  ["datacenter", { kind: "value", key: "datacenter" }],
  ["dev", { kind: "dev" }],
  ["dns-port", { kind: "value", key: "ports.dns" }],
  ["domain", { kind: "value", key: "domain" }],
  ["enable-local-script-checks", { kind: "bool", key: "enable_local_script_checks" }],
  ["enable-script-checks", { kind: "bool", key: "enable_script_checks" }],
  ["encrypt", { kind: "value", key: "encrypt" }],
  ["grpc-port", { kind: "value", key: "ports.grpc" }],
  ["hcl", { kind: "hcl" }],
  ["http-port", { kind: "value", key: "ports.http" }],
  ["join", { kind: "list", key: "start_join" }],
  ["log-json", { kind: "bool", key: "log_json" }],
  ["log-level", { kind: "value", key: "log_level" }],
  ["node", { kind: "value", key: "node_name" }],
  ["node-id", { kind: "value", key: "node_id" }],
  ["node-meta", { kind: "meta", key: "node_meta" }],
  ["pid-file", { kind: "value", key: "pid_file" }],
  ["raft-protocol", { kind: "value", key: "raft_protocol" }],
  ["recursor", { kind: "list", key: "recursors" }],
  ["rejoin", { kind: "bool", key: "rejoin_after_leave" }],
  ["retry-interval", { kind: "value", key: "retry_interval" }],
  ["retry-join", { kind: "list", key: "retry_join" }],
  ["retry-join-wan", { kind: "list", key: "retry_join_wan" }],
  ["retry-max", { kind: "value", key: "retry_max" }],
  ["retry-interval-wan", { kind: "value", key: "retry_interval_wan" }],
  ["retry-max-wan", { kind: "value", key: "retry_max_wan" }],
  ["serf-lan-port", { kind: "value", key: "ports.serf_lan" }],
  ["serf-wan-port", { kind: "value", key: "ports.serf_wan" }],
  ["server", { kind: "bool", key: "server" }],
  ["server-port", { kind: "value", key: "ports.server" }],
  ["ui", { kind: "bool", key: "ui_config.enabled" }],
]);

/** Config key (dotted) → the flag that sets it, so errors about flag values name the flag. */
const FLAG_FOR_KEY: ReadonlyMap<string, string> = new Map(
  [...FLAGS].flatMap(([name, spec]) => ("key" in spec ? [[spec.key, `-${name}`] as const] : [])),
);

export function flagLabel(path: string): string {
  return FLAG_FOR_KEY.get(path) ?? path;
}

export interface AgentFlags {
  readonly dev: boolean;
  /** Config keys set by single-valued flags, in Consul's JSON shape; values are still the strings given. */
  readonly values: Record<string, unknown>;
  /**
   * Config keys set by repeatable flags (`-retry-join`, `-join`, `-recursor`). Consul merges these before the
   * config files, so flag entries come first in the concatenated lists.
   */
  readonly lists: Record<string, string[]>;
  /** `-config-file` and `-config-dir` paths in the order given (Consul reads a directory wherever either names one). */
  readonly configPaths: readonly string[];
  readonly configFormat: ConfigFormat | undefined;
  readonly hcl: readonly string[];
  readonly clockOffsetMs: number;
}

/**
 * Parses `cairn agent` arguments as Go's flag package does: `-flag value`, `-flag=value`, `--flag`; booleans
 * as `-server` or `-server=false`; `--` ends the flags. The agent takes no other arguments.
 */
export function parseAgentFlags(argv: readonly string[]): AgentFlags {
  const values: Record<string, unknown> = {};
  const lists: Record<string, string[]> = {};
  const configPaths: string[] = [];
  const hcl: string[] = [];
  let dev = false;
  let configFormat: ConfigFormat | undefined;
  let clockOffsetMs = 0;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      if (i + 1 < argv.length)
        throw new ConfigError(
          `unexpected argument ${JSON.stringify(argv[i + 1])}: the agent takes only flags`,
        );
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      throw new ConfigError(`unexpected argument ${JSON.stringify(arg)}: the agent takes only flags`);
    }
    const body = arg.slice(arg.startsWith("--") ? 2 : 1);
    const equals = body.indexOf("=");
    const name = equals === -1 ? body : body.slice(0, equals);
    const spec = FLAGS.get(name);
    if (name === "" || name.startsWith("-")) throw new ConfigError(`bad flag syntax: ${arg}`);
    if (spec === undefined) throw new ConfigError(`unknown flag -${name}`);

    const inline = equals === -1 ? undefined : body.slice(equals + 1);
    const isBool = spec.kind === "bool" || spec.kind === "dev";
    let value: string;
    if (isBool) {
      const parsed = inline === undefined ? true : parseGoBoolean(inline);
      if (parsed === undefined)
        throw new ConfigError(`-${name}: expected true or false, got ${JSON.stringify(inline)}`);
      value = String(parsed);
    } else if (inline !== undefined) {
      value = inline;
    } else {
      const next = argv[++i];
      if (next === undefined) throw new ConfigError(`-${name}: needs a value`);
      value = next;
    }

    switch (spec.kind) {
      case "dev":
        dev = value === "true";
        break;
      case "config-path":
        configPaths.push(value);
        break;
      case "config-format":
        if (value !== "json" && value !== "hcl")
          throw new ConfigError(`-config-format: expected "hcl" or "json", got ${JSON.stringify(value)}`);
        configFormat = value;
        break;
      case "hcl":
        hcl.push(value);
        break;
      case "clock-offset": {
        const nanos = parseGoDuration(value);
        if (nanos === undefined)
          throw new ConfigError(
            `-clock-offset: expected a duration such as "90s" or "-5m", got ${JSON.stringify(value)}`,
          );
        clockOffsetMs = nanosToMillis(nanos);
        break;
      }
      case "list":
        lists[spec.key] = [...(lists[spec.key] ?? []), value];
        break;
      case "meta": {
        const colon = value.indexOf(":");
        if (colon <= 0) throw new ConfigError(`-${name}: expected key:value, got ${JSON.stringify(value)}`);
        setPath(values, `${spec.key}.${value.slice(0, colon)}`, value.slice(colon + 1), true);
        break;
      }
      default:
        setPath(values, spec.key, spec.kind === "bool" ? value === "true" : value);
    }
  }
  return { dev, values, lists, configPaths, configFormat, hcl, clockOffsetMs };
}

/** Sets a dotted path; with `lastIsData` the final segment is user data (a node-meta key) and kept verbatim. */
function setPath(values: Record<string, unknown>, path: string, value: unknown, lastIsData = false): void {
  const parts = lastIsData ? [...path.split(".", 1), path.slice(path.indexOf(".") + 1)] : path.split(".");
  let node = values;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    const child =
      next !== null && typeof next === "object" && !Array.isArray(next)
        ? (next as Record<string, unknown>)
        : {};
    node[part] = child;
    node = child;
  }
  Object.defineProperty(node, parts[parts.length - 1]!, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
