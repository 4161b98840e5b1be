import { readFileSync } from "node:fs";

/** Reads a file the user named (token file, certificates); the error names what it was for. */
export function readConfigFile(what: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`Error loading ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
