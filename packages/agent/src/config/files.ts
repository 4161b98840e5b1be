import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { ConfigError, type ConfigFile, type ConfigFormat } from "./source.js";

/** The only file I/O of configuration loading: read -config-file / -config-dir paths in order. */

const FORMAT_BY_EXTENSION: Readonly<Record<string, ConfigFormat>> = { ".json": "json", ".hcl": "hcl" };

export interface ConfigPathsRead {
  readonly files: ConfigFile[];
  /** Files passed over because their format is unknown (Consul warns about each). */
  readonly skipped: string[];
}

/**
 * Reads each path as Consul does, whichever flag named it: a file as itself, a directory as its files in
 * lexical order (subdirectories ignored). Without -config-format only `*.json` and `*.hcl` files are read;
 * with it, every file is read in that format.
 */
export function readConfigPaths(paths: readonly string[], format: ConfigFormat | undefined): ConfigPathsRead {
  const files: ConfigFile[] = [];
  const skipped: string[] = [];
  const read = (path: string) => {
    const fileFormat = format ?? FORMAT_BY_EXTENSION[extname(path)];
    if (fileFormat === undefined) skipped.push(path);
    else files.push(readConfigFile(path, fileFormat));
  };
  for (const path of paths) {
    if (!isDirectory(path)) {
      read(path);
      continue;
    }
    for (const name of readdirSync(path).sort()) {
      const file = join(path, name);
      if (!isDirectory(file)) read(file);
    }
  }
  return { files, skipped };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    throw new ConfigError(`config file ${path}: ${describe(error)}`);
  }
}

function readConfigFile(path: string, format: ConfigFormat): ConfigFile {
  try {
    return { name: `config file ${path}`, path, format, text: readFileSync(path, "utf8") };
  } catch (error) {
    throw new ConfigError(`config file ${path}: ${describe(error)}`);
  }
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
