import {
  int,
  obj,
  optInt,
  optList,
  optOneOf,
  optStr,
  type Raw,
  rawItem,
  str,
  strItem,
} from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION } from "../commands/version.js";
import { applyError } from "../store/errors.js";
import type { SessionCommand, SessionSpec } from "./commands.js";
import { sessionCreate, sessionInvalidate } from "./writes.js";

const v = COMMAND_VERSION;

function decodeSpec(r: Raw): SessionSpec {
  return {
    ID: str(r, "ID"),
    Node: str(r, "Node"),
    Name: optStr(r, "Name"),
    Checks: optList(r, "Checks", strItem),
    NodeChecks: optList(r, "NodeChecks", strItem),
    ServiceChecks: optList(r, "ServiceChecks", (x, at) => {
      const c = rawItem(x, at);
      return { ID: str(c, "ID"), Namespace: optStr(c, "Namespace") };
    }),
    LockDelay: optInt(r, "LockDelay"),
    Behavior: optOneOf(r, "Behavior", ["release", "delete"]),
    TTL: optStr(r, "TTL"),
    Namespace: optStr(r, "Namespace"),
  };
}

export const sessionHandlers: HandlerMap<SessionCommand> = {
  "session.create": {
    decode: (r) => ({
      v,
      type: "session.create",
      session: decodeSpec(obj(r, "session")),
      now: int(r, "now"),
      ttlMinNs: optInt(r, "ttlMinNs"),
    }),
    apply(tx, c) {
      const created = sessionCreate(tx, c.session, c.ttlMinNs);
      return typeof created === "string" ? applyError(created) : { ID: created.ID };
    },
  },
  "session.destroy": {
    decode: (r) => ({
      v,
      type: "session.destroy",
      ns: optStr(r, "ns"),
      id: str(r, "id"),
      now: int(r, "now"),
    }),
    apply(tx, c) {
      sessionInvalidate(tx, c.id, c.now, c.ns);
      return true;
    },
  },
  "session.invalidate": {
    decode: (r) => ({
      v,
      type: "session.invalidate",
      ns: optStr(r, "ns"),
      id: str(r, "id"),
      now: int(r, "now"),
    }),
    apply(tx, c) {
      sessionInvalidate(tx, c.id, c.now, c.ns);
      return true;
    },
  },
};
