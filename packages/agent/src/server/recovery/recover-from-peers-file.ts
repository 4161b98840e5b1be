import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { recoverCluster } from "@cairn/raft";
import type { Logger } from "pino";
import { parsePeersFile } from "./peers-file.js";

export const PEERS_FILE = "peers.json";

/**
 * Consul's manual outage recovery: when `<raftDir>/peers.json` exists, make its servers the Raft
 * configuration before Raft starts, then delete the file (a later restart must not redo it). Returns
 * whether a recovery happened. A file that cannot be used stops the start with the reason.
 */
export async function recoverFromPeersFile(raftDir: string, selfId: string, log: Logger): Promise<boolean> {
  const file = join(raftDir, PEERS_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
  const members = parsePeersFile(text, file, selfId);
  log.warn({ file, servers: members }, "found peers.json: recovering the Raft configuration");
  const outcome = await recoverCluster(raftDir, members, log);
  await rm(file);
  log.warn(
    {
      previous: outcome.previous,
      conf: outcome.conf,
      lastIndex: outcome.lastIndex,
      lastTerm: outcome.lastTerm,
      commit: outcome.commit,
      snapshotIndex: outcome.snapshotIndex,
      confEntriesRewritten: outcome.confEntriesRewritten,
    },
    "RECOVERY: Raft configuration replaced with the servers of peers.json (every log entry kept) and peers.json deleted; the listed servers will elect a leader among themselves",
  );
  return true;
}
