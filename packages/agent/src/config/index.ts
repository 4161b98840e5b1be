export { buildAgentConfig, DEV_MODE_SOURCE } from "./build.js";
export { nanosToMillis, parseGoDuration } from "./duration.js";
export { readConfigPaths } from "./files.js";
export { type AgentFlags, parseAgentFlags } from "./flags.js";
export { type LoadedAgentConfig, loadAgentConfig, resolveAgentConfig } from "./load.js";
export { type ConfigSourceValues, configSourceSchema } from "./schema.js";
export {
  ConfigError,
  type ConfigFile,
  type ConfigFormat,
  type ConfigText,
  mergeSources,
  parseConfigText,
  validateSource,
} from "./source.js";
export type {
  AclSettings,
  AgentConfig,
  AgentLimits,
  AgentPorts,
  AutopilotSettings,
  DnsSettings,
  LogLevel,
  TlsSettings,
  TlsStanzaSettings,
  TlsVersion,
} from "./types.js";
