import { hostname } from "node:os";
import { buildAgentConfig, DEV_MODE_SOURCE } from "./build.js";
import { readConfigPaths } from "./files.js";
import { type AgentFlags, flagLabel, parseAgentFlags } from "./flags.js";
import { type ConfigFile, type ConfigText, mergeSources, parseConfigText, validateSource } from "./source.js";
import type { AgentConfig } from "./types.js";

export interface LoadedAgentConfig {
  readonly config: AgentConfig;
  /** One line each: skipped files, deprecated keys, ignored keys, and Consul's start-up warnings. */
  readonly warnings: readonly string[];
}

/**
 * Resolves the agent's configuration from its arguments, reading the files they name. Throws ConfigError with
 * a one-line message naming the source and the key. See resolveAgentConfig for the order of sources.
 *
 * `env.HOSTNAME`, when set, is the default node name instead of the machine's hostname (containers, tests).
 */
export function loadAgentConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): LoadedAgentConfig {
  const flags = parseAgentFlags(argv);
  const { files, skipped } = readConfigPaths(flags.configPaths, flags.configFormat);
  const resolved = resolveAgentConfig(flags, files, env.HOSTNAME || hostname());
  const skippedWarnings = skipped.map(
    (path) => `skipping file ${path}, extension must be .hcl or .json, or config format must be set`,
  );
  return { config: resolved.config, warnings: [...skippedWarnings, ...resolved.warnings] };
}

/**
 * The pure part of loadAgentConfig, once the files are read. Sources apply in Consul's order, each over the
 * previous: defaults, dev mode (`-dev`), repeatable flags (`-retry-join`, ...), config files and directories in
 * the order given, the other flags, then `-hcl` fragments. Objects merge key by key and lists concatenate, so
 * `-retry-join` addresses come before those from files.
 */
export function resolveAgentConfig(
  flags: AgentFlags,
  files: readonly ConfigFile[],
  defaultNodeName: string,
): LoadedAgentConfig {
  const fragments = flags.hcl.map((text): ConfigText => ({ name: "-hcl flag", format: "hcl", text }));
  const sources = [
    ...(flags.dev ? [validateSource("dev mode", { ...DEV_MODE_SOURCE })] : []),
    validateSource("command-line flags", flags.lists, flagLabel),
    ...files.map((file) => validateSource(file.name, parseConfigText(file))),
    validateSource("command-line flags", flags.values, flagLabel),
    ...fragments.map((fragment) => validateSource(fragment.name, parseConfigText(fragment))),
  ];
  const built = buildAgentConfig(mergeSources(sources.map((source) => source.values)), {
    dev: flags.dev,
    hostname: defaultNodeName,
    clockOffsetMs: flags.clockOffsetMs,
    configFiles: files.map((file) => file.path),
  });
  return {
    config: built.config,
    warnings: [...sources.flatMap((source) => source.warnings), ...built.warnings],
  };
}
