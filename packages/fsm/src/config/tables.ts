import { joinKey } from "../store/keys.js";
import type { ConfigEntry } from "./records.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** kind \0 ns \0 name -> config entry */
    configEntries: ConfigEntry;
    /** target ns \0 target service \0 kind \0 ns \0 name: the chain entries that send traffic to a service (derived) */
    configLinks: true;
  }
  interface TableIndexes {
    configEntries: number;
  }
}

/** Blocking-query channels: every entry of a kind, and one entry. */
export const configKindChannel = (kind: string): string => `cfg\u0000${kind}`;
export const configEntryChannel = (kind: string, ns: string, name: string): string =>
  `cfg\u0000${kind}\u0000${ns}\u0000${name}`;

export const configEntryKey = (kind: string, ns: string, name: string): string => joinKey(kind, ns, name);
