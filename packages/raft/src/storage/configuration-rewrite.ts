import { decodeConfEntry, encodeConfEntry } from "../core/conf.js";
import type { ConfState, Entry, HardState, LogBounds, RestoreState, SnapshotMeta } from "../core/types.js";

/** What an offline configuration rewrite puts back into the log database. */
export interface ConfigurationRewrite {
  /** Conf entries re-encoded with the new configuration (for an empty log: a first entry stating it). */
  entries: Entry[];
  /** The snapshot record's meta with the new configuration, when there is a snapshot. */
  snapshot: SnapshotMeta | null;
  /** A new hard state, only when the log was empty and the rewrite gives it its first entry. */
  hardState: HardState | null;
  /** The configuration in force before the rewrite. */
  previous: ConfState;
}

/** Refuses a configuration no cluster could run on. */
function checkConfiguration(conf: ConfState): void {
  const all = [...conf.voters, ...conf.learners];
  if (conf.voters.length === 0) throw new Error("the new configuration has no voter");
  const seen = new Set<string>();
  for (const id of all) {
    if (id === "") throw new Error("the new configuration names a server with an empty id");
    if (seen.has(id)) throw new Error(`the new configuration names server ${id} twice`);
    seen.add(id);
  }
}

/**
 * Plans quorum-loss recovery on one server's durable state: every place the log records a configuration
 * (each conf entry and the snapshot's meta) is made to state `conf`; no entry is added, dropped or moved,
 * and no term changes.
 *
 * Why rewrite in place instead of appending a new conf entry: survivors recover independently and their
 * logs may differ in length. An appended entry would carry an index and term that a real entry on another
 * survivor may also carry, and Raft's log matching would then take the two for the same entry. Rewriting
 * the same way on every survivor keeps "same index and term, same content" true, and keeps each survivor's
 * last index and term, so the election among them still picks the most complete log.
 */
export function planConfigurationRewrite(
  restored: RestoreState & { bounds: LogBounds },
  conf: ConfState,
): ConfigurationRewrite {
  checkConfiguration(conf);
  const data = encodeConfEntry({ change: null, conf });
  const stated = (e: Entry): Entry => ({ ...e, data });
  const confEntries = restored.bounds.confs;
  const lastConf = confEntries.at(-1);
  const previous = lastConf
    ? decodeConfEntry(lastConf.data).conf
    : (restored.snapshot?.conf ?? { voters: [], learners: [] });

  if (restored.snapshot === null && restored.bounds.lastIndex === 0) {
    // Nothing to rewrite: give the log the first entry every cluster's log starts with, as bootstrap does.
    // Every other survivor's entry 1 (term 1) is that bootstrap entry, now rewritten to the same content.
    const { term, vote } = restored.hardState;
    return {
      entries: [{ index: 1, term: 1, kind: "conf", data }],
      snapshot: null,
      hardState: { term: Math.max(term, 1), vote: term >= 1 ? vote : null, commit: 1 },
      previous,
    };
  }
  return {
    entries: confEntries.map(stated),
    snapshot: restored.snapshot && { ...restored.snapshot, conf },
    hardState: null,
    previous,
  };
}
