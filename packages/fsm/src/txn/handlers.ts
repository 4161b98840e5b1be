import { decodeCheckSpec, decodeNodeSpec, decodeServiceSpec } from "../catalog/decode.js";
import { CommandDecodeError } from "../commands/errors.js";
import {
  bytes,
  int,
  list,
  obj,
  oneOf,
  optInt,
  optStr,
  type Raw,
  rawItem,
  str,
  u64,
} from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION } from "../commands/version.js";
import { applyError } from "../store/errors.js";
import { CATALOG_VERBS, KV_VERBS, type TxnCommand, type TxnOp } from "./commands.js";
import { runTxn, txnLimitError } from "./run.js";

export function decodeTxnOp(r: Raw): TxnOp {
  const keys = Object.keys(r);
  if (keys.length !== 1)
    throw new CommandDecodeError("each transaction operation needs exactly one of KV, Node, Service, Check");
  if ("KV" in r) {
    const kv = obj(r, "KV");
    return {
      KV: {
        Verb: oneOf(kv, "Verb", KV_VERBS),
        Key: str(kv, "Key"),
        Value: kv.Value == null ? undefined : bytes(kv, "Value"),
        Flags: kv.Flags == null ? undefined : u64(kv, "Flags"),
        Index: optInt(kv, "Index"),
        Session: optStr(kv, "Session"),
        Namespace: optStr(kv, "Namespace"),
      },
    };
  }
  if ("Node" in r) {
    const n = obj(r, "Node");
    return { Node: { Verb: oneOf(n, "Verb", CATALOG_VERBS), Node: decodeNodeSpec(obj(n, "Node")) } };
  }
  if ("Service" in r) {
    const s = obj(r, "Service");
    return {
      Service: {
        Verb: oneOf(s, "Verb", CATALOG_VERBS),
        Node: str(s, "Node"),
        Service: decodeServiceSpec(obj(s, "Service")),
      },
    };
  }
  if ("Check" in r) {
    const c = obj(r, "Check");
    const check = obj(c, "Check");
    return {
      Check: {
        Verb: oneOf(c, "Verb", CATALOG_VERBS),
        Check: { ...decodeCheckSpec(check), Node: str(check, "Node") },
      },
    };
  }
  throw new CommandDecodeError(`unknown transaction operation "${keys[0]}"`);
}

export const txnHandlers: HandlerMap<TxnCommand> = {
  txn: {
    atomic: true,
    decode: (r) => ({
      v: COMMAND_VERSION,
      type: "txn",
      ops: list(r, "ops", (x, at) => decodeTxnOp(rawItem(x, at))),
      now: int(r, "now"),
    }),
    apply(tx, c) {
      const limit = txnLimitError(c.ops);
      return limit ? applyError(limit, "too-large") : runTxn(tx, c.ops, c.now);
    },
  },
};
