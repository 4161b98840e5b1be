import { joinKey, prefixEnd, SEP } from "../store/keys.js";
import type { Tables } from "../store/tables.js";
import type { Tx } from "../store/tx.js";
import { type EntryLookup, relatedServices, type ServiceRef } from "./graph.js";
import { configEntriesOfKind } from "./reads.js";
import type { ConfigEntry } from "./records.js";
import { configEntryChannel, configEntryKey, configKindChannel } from "./tables.js";

/** Adds (or removes) the entry's rows in the link index, so a change finds the chains that reach it directly. */
export function linkConfigEntry(t: Tables, e: ConfigEntry, add: boolean): void {
  for (const target of relatedServices(e)) {
    const key = joinKey(target.ns, target.name, e.Kind, e.Namespace, e.Name);
    if (add) t.configLinks.set(key, true);
    else t.configLinks.delete(key);
  }
}

function linkedTo(t: Tables, ns: string, name: string): ServiceRef[] {
  const out: ServiceRef[] = [];
  const prefix = joinKey(ns, name, "");
  t.configLinks.forRange(prefix, prefixEnd(prefix), false, (key) => {
    const [, , , entryNs, entryName] = key.split("\u0000");
    out.push({ ns: entryNs ?? "", name: entryName ?? "" });
  });
  return out;
}

export function lookupOver(t: Tables): EntryLookup {
  return {
    get: (kind, ns, name) => t.configEntries.get(configEntryKey(kind, ns, name)),
    list: (kind, ns) => configEntriesOfKind(t, kind, ns),
    linkedTo: (ns, name) => linkedTo(t, ns, name),
  };
}

export function configEntryChanged(tx: Tx, kind: string, ns: string, name: string): void {
  tx.tables.indexes.configEntries = tx.index;
  tx.touch(configKindChannel(kind));
  tx.touch(configEntryChannel(kind, ns, name));
}

/**
 * A purged namespace's entries. Their link rows stay, as they always have: a stale link only makes a later
 * change check one chain more.
 */
export function deleteConfigEntriesIn(tx: Tx, ns: string): void {
  const t = tx.tables;
  const entries: Array<[string, string, string]> = [];
  t.configEntries.forEach((_, key) => {
    const [kind = "", entryNs = "", name = ""] = key.split(SEP);
    if (entryNs === ns) entries.push([kind, entryNs, name]);
  });
  for (const [kind, entryNs, name] of entries) {
    t.configEntries.delete(configEntryKey(kind, entryNs, name));
    configEntryChanged(tx, kind, entryNs, name);
  }
}
