import type { Versioned } from "../commands/version.js";
import type { PreparedQuerySpec } from "./records.js";

/** Create (the ID is new, chosen by the leader) or update (the ID must exist) one query. */
export interface PreparedQuerySetCommand extends Versioned {
  readonly type: "prepared-query.set";
  readonly op: "create" | "update";
  readonly query: PreparedQuerySpec;
}

export interface PreparedQueryDeleteCommand extends Versioned {
  readonly type: "prepared-query.delete";
  readonly id: string;
}

export type PreparedQueryCommand = PreparedQuerySetCommand | PreparedQueryDeleteCommand;
