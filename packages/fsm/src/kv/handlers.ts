import { bytes, int, optStr, type Raw, str, u64 } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { applyError } from "../commands/results.js";
import { COMMAND_VERSION } from "../commands/types.js";
import { toBinaryString } from "../state/binary.js";
import { kvCas, kvDelete, kvDeleteCas, kvDeleteTree, kvLock, kvSet, kvUnlock } from "../state/kv.js";
import { joinKey } from "../state/tables.js";
import { DEFAULT_NAMESPACE } from "../types.js";

const v = COMMAND_VERSION;
const ns = (raw: Raw) => optStr(raw, "ns");
const ck = (namespace: string | undefined, key: string) => joinKey(namespace ?? DEFAULT_NAMESPACE, key);

export const kvHandlers: HandlerMap<
  "kv.set" | "kv.cas" | "kv.delete" | "kv.delete-tree" | "kv.delete-cas" | "kv.lock" | "kv.unlock"
> = {
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
      kvSet(tx, ck(c.ns, c.key), toBinaryString(c.value), c.flags);
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
    apply: (tx, c) => kvCas(tx, ck(c.ns, c.key), toBinaryString(c.value), c.flags, c.index),
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
      const outcome = kvLock(tx, ck(c.ns, c.key), toBinaryString(c.value), c.flags, c.session, c.now);
      if (outcome === "invalid-session") return applyError(`invalid session "${c.session}"`, 500);
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
    apply: (tx, c) => kvUnlock(tx, ck(c.ns, c.key), toBinaryString(c.value), c.flags, c.session),
  },
};
