import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

const NODE_ID_FILE = "node-id";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The node's ID, as Consul picks it: the configured `node_id`, else the one saved in `<data_dir>/node-id`,
 * else a new random UUID saved there for the next start. The Raft server ID is this ID, so a server keeps
 * its identity across restarts.
 */
export async function resolveNodeId(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured.toLowerCase();
  const file = join(dataDir, NODE_ID_FILE);
  let saved: string | undefined;
  try {
    saved = (await readFile(file, "utf8")).trim().toLowerCase();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (saved !== undefined) {
    if (!UUID.test(saved)) throw new Error(`${file} does not hold a UUID: ${JSON.stringify(saved)}`);
    return saved;
  }
  const id = randomUUID();
  await mkdir(dataDir, { recursive: true });
  await writeFile(`${file}.tmp`, id, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return id;
}
