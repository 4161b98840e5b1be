import { rmSync, writeFileSync } from "node:fs";

/** Writes the process ID to `path` (Consul's `pid_file`); the returned function removes it again. */
export function writePidFile(path: string): () => void {
  writeFileSync(path, `${process.pid}\n`, { mode: 0o644 });
  return () => rmSync(path, { force: true });
}
