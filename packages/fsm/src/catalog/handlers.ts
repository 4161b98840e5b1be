import { int, obj, optStr, str } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION } from "../commands/version.js";
import { applyError } from "../store/errors.js";
import { DEFAULT_NAMESPACE } from "../store/keys.js";
import type { CatalogCommand } from "./commands.js";
import { decodeRegisterSpec } from "./decode.js";
import { deleteCheck, deleteNode, deleteService, register } from "./writes.js";

const v = COMMAND_VERSION;

export const catalogHandlers: HandlerMap<CatalogCommand> = {
  "catalog.register": {
    atomic: true,
    decode: (r) => ({
      v,
      type: "catalog.register",
      registration: decodeRegisterSpec(obj(r, "registration")),
      now: int(r, "now"),
    }),
    apply(tx, c) {
      const err = register(tx, c.registration, c.now);
      return err ? applyError(err) : true;
    },
  },
  "catalog.deregister": {
    decode: (r) => ({
      v,
      type: "catalog.deregister",
      ns: optStr(r, "ns"),
      node: str(r, "node"),
      serviceID: optStr(r, "serviceID"),
      checkID: optStr(r, "checkID"),
      now: int(r, "now"),
    }),
    // The service ID wins over the check ID, as in Consul (a service ID can also name a check).
    apply(tx, c) {
      if (c.serviceID) deleteService(tx, c.node, c.ns ?? DEFAULT_NAMESPACE, c.serviceID, c.now);
      else if (c.checkID) deleteCheck(tx, c.node, c.ns ?? DEFAULT_NAMESPACE, c.checkID, c.now);
      else deleteNode(tx, c.node, c.now);
      return true;
    },
  },
};
