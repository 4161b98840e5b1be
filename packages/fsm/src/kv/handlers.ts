import { bytes, int, optStr, type Raw, str, u64 } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION } from "../commands/version.js";
import { applyError } from "../store/errors.js";
import { DEFAULT_NAMESPACE, joinKey } from "../store/keys.js";
import type { KvCommand } from "./commands.js";
import { kvCas, kvDelete, kvDeleteCas, kvDeleteTree, kvLock, kvSet, kvUnlock } from "./writes.js";

const v = COMMAND_VERSION;
const ns = (raw: Raw) => optStr(raw, "ns");
const ck = (namespace: string | undefined, key: string) => joinKey(namespace ?? DEFAULT_NAMESPACE, key);

export const kvHandlers: HandlerMap<KvCommand> = {
  "kv.set": {
    decode: (r) => ({
      v,
      type: "kv.set",
      ns: ns(r),
      key: str(r, "key"),
      value: bytes(r, "value"),
      flags: u64(r, "flags"),
    }),
    apply(tx, c) {
      kvSet(tx, ck(c.ns, c.key), c.value, c.flags);
      return true;
    },
  },
  "kv.cas": {
    decode: (r) => ({
      v,
      type: "kv.cas",
      ns: ns(r),
      key: str(r, "key"),
      value: bytes(r, "value"),
      flags: u64(r, "flags"),
      index: int(r, "index"),
    }),
    apply: (tx, c) => kvCas(tx, ck(c.ns, c.key), c.value, c.flags, c.index),
  },
  "kv.delete": {
    decode: (r) => ({ v, type: "kv.delete", ns: ns(r), key: str(r, "key") }),
    apply(tx, c) {
      kvDelete(tx, ck(c.ns, c.key));
      return true;
    },
  },
  "kv.delete-tree": {
    decode: (r) => ({ v, type: "kv.delete-tree", ns: ns(r), prefix: str(r, "prefix") }),
    apply(tx, c) {
      kvDeleteTree(tx, ck(c.ns, c.prefix));
      return true;
    },
  },
  "kv.delete-cas": {
    decode: (r) => ({ v, type: "kv.delete-cas", ns: ns(r), key: str(r, "key"), index: int(r, "index") }),
    apply: (tx, c) => kvDeleteCas(tx, ck(c.ns, c.key), c.index),
  },
  "kv.lock": {
    decode: (r) => ({
      v,
      type: "kv.lock",
      ns: ns(r),
      key: str(r, "key"),
      value: bytes(r, "value"),
      flags: u64(r, "flags"),
      session: str(r, "session"),
      now: int(r, "now"),
    }),
    apply(tx, c) {
      const outcome = kvLock(tx, ck(c.ns, c.key), c.value, c.flags, c.session, c.now);
      if (outcome === "invalid-session")
        return applyError(`invalid session "${c.session}"`, "invalid-session");
      return outcome === "locked";
    },
  },
  "kv.unlock": {
    decode: (r) => ({
      v,
      type: "kv.unlock",
      ns: ns(r),
      key: str(r, "key"),
      value: bytes(r, "value"),
      flags: u64(r, "flags"),
      session: str(r, "session"),
    }),
    apply: (tx, c) => kvUnlock(tx, ck(c.ns, c.key), c.value, c.flags, c.session),
  },
  "tombstone.reap": {
    decode: (r) => ({ v, type: "tombstone.reap", index: int(r, "index") }),
    // Reaping changes no read result, so it moves no index and wakes no watcher.
    apply(tx, c) {
      const t = tx.tables;
      const reaped: string[] = [];
      t.tombstones.forEach((at, ck) => {
        if (at <= c.index) reaped.push(ck);
      });
      for (const ck of reaped) t.tombstones.delete(ck);
      return true;
    },
  },
};
