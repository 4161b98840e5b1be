// Where `cairn tls` writes: relative to the working directory, as consul does, and never over an existing file.

import { randomBytes } from "node:crypto";
import { existsSync, linkSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Consul's modes: certificates readable by all, keys by the owner only. */
export const CERT_MODE = 0o644;
export const KEY_MODE = 0o600;

export function fileExists(cwd: string, name: string): boolean {
  return existsSync(resolve(cwd, name));
}

/**
 * Writes a complete file or nothing, and refuses to replace one: the content goes to a temporary file
 * first, which is then hard-linked under its name (link fails if the name exists, even if another
 * process created it since we looked).
 */
export function writeNewFile(cwd: string, name: string, content: string, mode: number): void {
  const path = resolve(cwd, name);
  const temp = join(dirname(path), `.${randomBytes(6).toString("hex")}.tmp`);
  writeFileSync(temp, content, { mode, flag: "wx" });
  try {
    linkSync(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") throw new Error(`${name} already exists.`);
    throw err;
  } finally {
    unlinkSync(temp);
  }
}
