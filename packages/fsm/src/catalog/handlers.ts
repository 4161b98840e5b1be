import { int, list, num, obj, optStr, rawItem, str } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { applyError } from "../commands/results.js";
import { COMMAND_VERSION } from "../commands/types.js";
import { deleteCheck, deleteNode, deleteService, register, updateCoordinate } from "../state/catalog.js";
import { DEFAULT_NAMESPACE } from "../types.js";
import { decodeRegisterSpec } from "./catalog-specs.js";

const v = COMMAND_VERSION;

export const catalogHandlers: HandlerMap<
  "catalog.register" | "catalog.deregister" | "coordinate.batch-update"
> = {
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
  "coordinate.batch-update": {
    decode: (r) => ({
      v,
      type: "coordinate.batch-update",
      updates: list(r, "updates", (x, at) => {
        const u = rawItem(x, at);
        const coord = obj(u, "Coord");
        return {
          Node: str(u, "Node"),
          Segment: optStr(u, "Segment"),
          Coord: {
            Vec: list(coord, "Vec", (n, nat) => num({ [nat]: n }, nat)),
            Error: num(coord, "Error"),
            Adjustment: num(coord, "Adjustment"),
            Height: num(coord, "Height"),
          },
        };
      }),
    }),
    apply(tx, c) {
      for (const u of c.updates)
        updateCoordinate(tx, { Node: u.Node, Segment: u.Segment ?? "", Coord: u.Coord });
      return true;
    },
  },
};

export const tombstoneHandlers: HandlerMap<"tombstone.reap"> = {
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
