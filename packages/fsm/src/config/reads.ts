import { DEFAULT_NAMESPACE, joinKey, prefixEnd } from "../store/keys.js";
import { channelRead, type Read, type ViewScope } from "../store/read.js";
import type { Tables } from "../store/tables.js";
import type { ConfigEntry } from "./records.js";
import { configEntryChannel, configEntryKey, configKindChannel } from "./tables.js";

/** Entries of a kind, in one namespace or (`*`) all, in key order. */
export function configEntriesOfKind(t: Tables, kind: string, ns: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  const prefix = ns === "*" ? joinKey(kind, "") : joinKey(kind, ns, "");
  t.configEntries.forRange(prefix, prefixEnd(prefix), false, (_, e) => void out.push(e));
  return out;
}

/** One config entry; the index is the config table's, as Consul reports it. */
export function configEntry(
  v: ViewScope,
  kind: string,
  name: string,
  ns: string = DEFAULT_NAMESPACE,
): Read<ConfigEntry | undefined> {
  const entry = v.t.configEntries.get(configEntryKey(kind, ns, name));
  return channelRead(v, entry, v.t.indexes.configEntries, configEntryChannel(kind, ns, name));
}

/** Config entries of one kind in a namespace (`*` for all), ordered by namespace then name. */
export function configEntries(
  v: ViewScope,
  kind: string,
  ns: string = DEFAULT_NAMESPACE,
): Read<ConfigEntry[]> {
  const entries = configEntriesOfKind(v.t, kind, ns);
  return channelRead(v, entries, v.t.indexes.configEntries, configKindChannel(kind));
}
