import { DEFAULT_NAMESPACE, joinKey, prefixEnd, SEP } from "../store/keys.js";
import { type Read, readAt, type ViewScope } from "../store/read.js";
import { kvKeyWatch, kvPrefixWatch } from "../store/watch/keys.js";
import { type KVEntry, type KvRecord, kvModifyIndex, kvValue, unpackKv } from "./records.js";

export function splitKvKey(ck: string): { ns: string; key: string } {
  const at = ck.indexOf(SEP);
  return { ns: ck.slice(0, at), key: ck.slice(at + 1) };
}

export function toKVEntry(ck: string, r: KvRecord, withValue: boolean): KVEntry {
  const { ns, key } = splitKvKey(ck);
  const m = unpackKv(r);
  const entry: KVEntry = {
    Key: key,
    Value: withValue ? kvValue(r, m.valueAt) : null,
    Flags: m.flags,
    CreateIndex: m.createIndex,
    ModifyIndex: m.modifyIndex,
    LockIndex: m.lockIndex,
    Namespace: ns,
  };
  return m.session ? { ...entry, Session: m.session } : entry;
}

/** Found: its ModifyIndex. Missing: the KV table index, as Consul does. */
export function kvGet(v: ViewScope, key: string, ns: string = DEFAULT_NAMESPACE): Read<KVEntry | undefined> {
  const ck = joinKey(ns, key);
  const r = v.t.kv.get(ck);
  return readAt(
    v,
    r ? toKVEntry(ck, r, true) : undefined,
    r ? kvModifyIndex(r) : v.t.indexes.kvs,
    kvKeyWatch(ck),
  );
}

/** Every entry under the prefix, in key order. `ns` "*" lists all namespaces. */
export function kvList(v: ViewScope, prefix: string, ns: string = DEFAULT_NAMESPACE): Read<KVEntry[]> {
  const out: KVEntry[] = [];
  const index = scanKv(v, prefix, ns, (ck, r) => {
    out.push(toKVEntry(ck, r, true));
  });
  return readAt(v, out, index, kvPrefixWatch(ns === "*" ? "" : joinKey(ns, prefix)));
}

/**
 * Keys under the prefix; with a separator, keys are cut after the first separator past the prefix
 * ("directories" end with it) and repeated ones collapse.
 */
export function kvKeys(
  v: ViewScope,
  prefix: string,
  separator = "",
  ns: string = DEFAULT_NAMESPACE,
): Read<string[]> {
  const out: string[] = [];
  const index = scanKv(v, prefix, ns, (ck) => {
    let key = splitKvKey(ck).key;
    if (separator) {
      const at = key.indexOf(separator, prefix.length);
      if (at >= 0) key = key.slice(0, at + separator.length);
    }
    if (out[out.length - 1] !== key) out.push(key);
  });
  return readAt(v, out, index, kvPrefixWatch(ns === "*" ? "" : joinKey(ns, prefix)));
}

/**
 * Visits live entries under a prefix and returns the index such a read reports: the highest ModifyIndex
 * among them and the tombstones under the prefix (so deletes never lower it), else the KV table index.
 */
function scanKv(v: ViewScope, prefix: string, ns: string, visit: (ck: string, r: KvRecord) => void): number {
  const t = v.t;
  let max = 0;
  if (ns === "*") {
    t.kv.forEach((r, ck) => {
      if (splitKvKey(ck).key.startsWith(prefix)) {
        visit(ck, r);
        max = Math.max(max, kvModifyIndex(r));
      }
    });
    t.tombstones.forEach((at, ck) => {
      if (at > max && splitKvKey(ck).key.startsWith(prefix)) max = at;
    });
  } else {
    const cp = joinKey(ns, prefix);
    const end = prefixEnd(cp);
    t.kv.forRange(cp, end, false, (ck, r) => {
      visit(ck, r);
      max = Math.max(max, kvModifyIndex(r));
    });
    t.tombstones.forRange(cp, end, false, (_, at) => {
      if (at > max) max = at;
    });
  }
  return prefix === "" || max === 0 ? t.indexes.kvs : max;
}
