import { CommandDecodeError } from "../commands/errors.js";
import { obj, optInt, optStr, type Raw, str } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { applyError } from "../commands/results.js";
import { COMMAND_VERSION } from "../commands/types.js";
import { joinKey, prefixEnd, type Tables } from "../state/tables.js";
import type { Tx } from "../state/tx.js";
import { type ConfigEntry, DEFAULT_NAMESPACE } from "../types.js";
import {
  configGraphError,
  type EntryLookup,
  relatedServices,
  type ServiceRef,
} from "./config-entries-graph.js";

/**
 * Config entries: one table keyed by kind \0 ns \0 name. Entries arrive validated and normalised by the API;
 * here they get their namespace and Raft indexes, pass the cross-entry checks, and wake watchers of their
 * kind and of themselves.
 */

const v = COMMAND_VERSION;

/** Blocking-query channels: every entry of a kind, and one entry. */
export const configKindChannel = (kind: string): string => `cfg\u0000${kind}`;
export const configEntryChannel = (kind: string, ns: string, name: string): string =>
  `cfg\u0000${kind}\u0000${ns}\u0000${name}`;

export const configEntryKey = (kind: string, ns: string, name: string): string => joinKey(kind, ns, name);

/** Entries of a kind, in one namespace or (`*`) all, in key order. */
export function configEntriesOfKind(t: Tables, kind: string, ns: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  const prefix = ns === "*" ? joinKey(kind, "") : joinKey(kind, ns, "");
  t.configEntries.forRange(prefix, prefixEnd(prefix), false, (_, e) => void out.push(e));
  return out;
}

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

function lookupOver(t: Tables): EntryLookup {
  return {
    get: (kind, ns, name) => t.configEntries.get(configEntryKey(kind, ns, name)),
    list: (kind, ns) => configEntriesOfKind(t, kind, ns),
    linkedTo: (ns, name) => linkedTo(t, ns, name),
  };
}

function changed(tx: Tx, kind: string, ns: string, name: string): void {
  tx.tables.indexes.configEntries = tx.index;
  tx.touch(configKindChannel(kind));
  tx.touch(configEntryChannel(kind, ns, name));
}

function decodeEntry(r: Raw): Readonly<Record<string, unknown>> {
  const entry = obj(r, "entry");
  str(entry, "Kind");
  str(entry, "Name");
  return entry;
}

export const configEntryHandlers: HandlerMap<"config-entry.set" | "config-entry.delete"> = {
  "config-entry.set": {
    decode: (r) => ({
      v,
      type: "config-entry.set",
      ns: optStr(r, "ns"),
      entry: decodeEntry(r),
      cas: optInt(r, "cas"),
    }),
    apply(tx, c) {
      const t = tx.tables;
      const kind = c.entry.Kind as string;
      const name = c.entry.Name as string;
      const ns = c.ns ?? DEFAULT_NAMESPACE;
      const key = configEntryKey(kind, ns, name);
      const existing = t.configEntries.get(key);
      if (c.cas !== undefined) {
        if (c.cas === 0 ? existing !== undefined : existing?.ModifyIndex !== c.cas) return false;
      }
      const entry: ConfigEntry = {
        ...c.entry,
        Kind: kind,
        Name: name,
        Namespace: ns,
        CreateIndex: existing?.CreateIndex ?? tx.index,
        ModifyIndex: tx.index,
      };
      const refusal = configGraphError(lookupOver(t), kind, ns, name, entry);
      if (refusal) return applyError(refusal);
      if (existing) linkConfigEntry(t, existing, false);
      t.configEntries.set(key, entry);
      linkConfigEntry(t, entry, true);
      changed(tx, kind, ns, name);
      return true;
    },
  },
  "config-entry.delete": {
    decode: (r) => {
      const kind = str(r, "kind");
      if (kind === "") throw new CommandDecodeError('command field "kind" must not be empty');
      return {
        v,
        type: "config-entry.delete",
        ns: optStr(r, "ns"),
        kind,
        name: str(r, "name"),
        cas: optInt(r, "cas"),
      };
    },
    apply(tx, c) {
      const t = tx.tables;
      const ns = c.ns ?? DEFAULT_NAMESPACE;
      const key = configEntryKey(c.kind, ns, c.name);
      const existing = t.configEntries.get(key);
      if (c.cas !== undefined && existing?.ModifyIndex !== c.cas) return false;
      if (!existing) return true;
      const refusal = configGraphError(lookupOver(t), c.kind, ns, c.name, undefined);
      if (refusal) return applyError(refusal);
      linkConfigEntry(t, existing, false);
      t.configEntries.delete(key);
      changed(tx, c.kind, ns, c.name);
      return true;
    },
  },
};
