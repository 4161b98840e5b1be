import type { Tx } from "../store/tx.js";
import type { Raw } from "./fields.js";
import type { ApplyResult } from "./results.js";

/** How one command type is decoded and applied. Each area (kv, sessions, catalog, ...) provides its own. */
export interface CommandHandler<C> {
  /** Validate the decoded msgpack map into a typed command; throws CommandDecodeError. */
  decode(raw: Raw): C;
  apply(tx: Tx, command: C): ApplyResult;
  /**
   * The apply may refuse after it started writing, so it runs on a clone of the tables that is kept only
   * when the result is not an ApplyError (and, for txn, has no Errors).
   */
  readonly atomic?: boolean;
}

/** The handlers of an area's commands, one per command type. */
export type HandlerMap<C extends { readonly type: string }> = {
  readonly [K in C["type"]]: CommandHandler<Extract<C, { type: K }>>;
};
