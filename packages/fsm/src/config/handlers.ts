import { CommandDecodeError } from "../commands/errors.js";
import { obj, optInt, optStr, type Raw, str } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION } from "../commands/version.js";
import { applyError } from "../store/errors.js";
import { DEFAULT_NAMESPACE } from "../store/keys.js";
import type { ConfigEntryCommand } from "./commands.js";
import { configGraphError } from "./graph.js";
import type { ConfigEntry } from "./records.js";
import { configEntryKey } from "./tables.js";
import { configEntryChanged, linkConfigEntry, lookupOver } from "./writes.js";

/**
 * Config entries: one table keyed by kind \0 ns \0 name. Entries arrive validated and normalised by the API;
 * here they get their namespace and Raft indexes, pass the cross-entry checks, and wake watchers of their
 * kind and of themselves.
 */

const v = COMMAND_VERSION;

function decodeEntry(r: Raw): Readonly<Record<string, unknown>> {
  const entry = obj(r, "entry");
  str(entry, "Kind");
  str(entry, "Name");
  return entry;
}

export const configEntryHandlers: HandlerMap<ConfigEntryCommand> = {
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
      configEntryChanged(tx, kind, ns, name);
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
      configEntryChanged(tx, c.kind, ns, c.name);
      return true;
    },
  },
};
