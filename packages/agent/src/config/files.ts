import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { ConfigError, type ConfigFile, type ConfigFormat } from "./source.js";

/** The only file I/O of configuration loading: read -config-file / -config-dir paths in order. */

const FORMAT_BY_EXTENSION: Readonly<Record<string, ConfigFormat>> = { ".json": "json", ".hcl": "hcl" };

/**
 * Reads each path: a file as itself, a directory as its `*.json` and `*.hcl` files in lexical order (as Consul,
 * whichever flag named it). `format` (-config-format) overrides the extension of files named directly.
 */
export function readConfigPaths(paths: readonly string[], format: ConfigFormat | undefined): ConfigFile[] {
  return paths.flatMap((path) => {
    if (isDirectory(path)) {
      return readdirSync(path)
        .filter((name) => FORMAT_BY_EXTENSION[extname(name)] !== undefined)
        .sort()
        .map((name) => join(path, name))
        .filter((file) => !isDirectory(file))
        .map((file) => readConfigFile(file, format ?? FORMAT_BY_EXTENSION[extname(file)]!));
    }
    const fileFormat = format ?? FORMAT_BY_EXTENSION[extname(path)];
    if (fileFormat === undefined) {
      throw new ConfigError(
        `config file ${path}: cannot tell its format; name it *.json or *.hcl, or pass -config-format`,
      );
    }
    return [readConfigFile(path, fileFormat)];
  });
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
