import type { Tx } from "../state/tx.js";
import type { Raw } from "./fields.js";
import type { ApplyResult } from "./results.js";
import type { Command, CommandType } from "./types.js";

/** How one command type is decoded and applied. Each area (kv, session, catalog, ...) provides its own. */
export interface CommandHandler<C extends Command> {
  /** Validate the decoded msgpack map into a typed command; throws CommandDecodeError. */
  decode(raw: Raw): C;
  apply(tx: Tx, command: C): ApplyResult;
  /**
   * The apply may refuse after it started writing, so it runs on a clone of the tables that is kept only
   * when the result is not an ApplyError (and, for txn, has no Errors).
   */
  readonly atomic?: boolean;
}

export type HandlerMap<T extends CommandType> = {
  readonly [K in T]: CommandHandler<Extract<Command, { type: K }>>;
};
