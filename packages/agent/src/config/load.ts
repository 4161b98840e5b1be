import { hostname } from "node:os";
import { buildAgentConfig, DEV_MODE_SOURCE } from "./build.js";
import { readConfigPaths } from "./files.js";
import { flagLabel, parseAgentFlags } from "./flags.js";
import { type ConfigFile, type ConfigText, mergeSources, parseConfigText, validateSource } from "./source.js";
import type { AgentConfig } from "./types.js";

export interface LoadedAgentConfig {
  readonly config: AgentConfig;
  /** One line each: deprecated keys, ignored keys, and Consul's start-up warnings. */
  readonly warnings: readonly string[];
}

/**
 * Resolves the agent's configuration as Consul does: defaults, then dev mode (`-dev`), then config files and
 * directories in the order given, then `-hcl` fragments, then flags; later sources override earlier ones and
 * lists concatenate. Throws ConfigError with a one-line message naming the source and key.
 *
 * `env.HOSTNAME`, when set, is the default node name instead of the machine's hostname (containers, tests).
 */
export function loadAgentConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): LoadedAgentConfig {
  const flags = parseAgentFlags(argv);
  const files = readConfigPaths(flags.configPaths, flags.configFormat);
  return resolveAgentConfig(flags, files, env.HOSTNAME || hostname());
}

/** The pure part of loadAgentConfig, once files are read. */
export function resolveAgentConfig(
  flags: ReturnType<typeof parseAgentFlags>,
  files: readonly ConfigFile[],
  defaultNodeName: string,
): LoadedAgentConfig {
  const texts: ConfigText[] = [
    ...files,
    ...flags.hcl.map((text): ConfigText => ({ name: "-hcl flag", format: "hcl", text })),
  ];
  const sources = [
    ...(flags.dev ? [validateSource("dev mode", { ...DEV_MODE_SOURCE })] : []),
    ...texts.map((text) => validateSource(text.name, parseConfigText(text))),
    validateSource("command-line flags", flags.values, flagLabel),
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
