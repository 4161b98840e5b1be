import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Writes the process ID to `path` (Consul's `pid_file`), creating its folder if missing (harnesses name a
 * file under a fresh temporary folder); the returned function removes the file again.
 */
export function writePidFile(path: string): () => void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${process.pid}\n`, { mode: 0o644 });
  return () => rmSync(path, { force: true });
}
