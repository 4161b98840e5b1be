import { list, num, obj, optStr, rawItem, str } from "../commands/fields.js";
import type { HandlerMap } from "../commands/handler.js";
import { COMMAND_VERSION } from "../commands/version.js";
import type { CoordinateBatchUpdateCommand } from "./commands.js";
import { updateCoordinate } from "./writes.js";

const v = COMMAND_VERSION;

export const coordinateHandlers: HandlerMap<CoordinateBatchUpdateCommand> = {
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
