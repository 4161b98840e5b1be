import type { KVEntry } from "@cairn/fsm";
import { scopedNamespace } from "../http/default-scope.js";

/**
 * KV entries as Consul's JSON, built directly: this is the hottest read path, and Flags must stay exact
 * above 2^53. Field order follows Consul's DirEntry. An empty value is null, as Go encodes a nil []byte.
 * `Namespace` follows the one rule of http/default-scope.ts, so answers in the default namespace stay
 * byte-identical to open-source Consul's.
 */
export function encodeKVEntries(entries: readonly KVEntry[]): string {
  let out = "[";
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (i > 0) out += ",";
    out += `{"LockIndex":${e.LockIndex},"Key":${JSON.stringify(e.Key)},"Flags":${e.Flags}`;
    out += e.Value && e.Value.byteLength > 0 ? `,"Value":"${base64(e.Value)}"` : `,"Value":null`;
    if (e.Session) out += `,"Session":${JSON.stringify(e.Session)}`;
    const ns = scopedNamespace(e.Namespace);
    if (ns !== undefined) out += `,"Namespace":${JSON.stringify(ns)}`;
    out += `,"CreateIndex":${e.CreateIndex},"ModifyIndex":${e.ModifyIndex}}`;
  }
  return `${out}]`;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}
