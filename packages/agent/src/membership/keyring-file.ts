import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseKey } from "@cairn/gossip";

/** Consul's keyring files in the data dir: the LAN pool's and the WAN pool's. */
export const LAN_KEYRING = "serf/local.keyring";
export const WAN_KEYRING = "serf/remote.keyring";

/**
 * The keys of a keyring file (a JSON array of base64 keys, the primary first, as Serf writes it); undefined
 * when there is no file. A file that cannot be used is an error: gossiping without the keys it holds would
 * cut this agent off from its cluster.
 */
export function readKeyringFile(path: string): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  let keys: unknown;
  try {
    keys = JSON.parse(text);
  } catch {
    throw new Error(`${path}: not a JSON array of keys`);
  }
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === "string"))
    throw new Error(`${path}: not a JSON array of keys`);
  for (const k of keys) parseKey(k);
  return keys;
}

/** Replaces the file atomically (write then rename), as Serf does after every keyring change. */
export function writeKeyringFile(path: string, keys: readonly string[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
