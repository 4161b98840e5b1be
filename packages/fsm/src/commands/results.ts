import type { SessionCreated } from "../sessions/commands.js";
import type { ApplyError } from "../store/errors.js";
import type { TxnResponse } from "../txn/results.js";

/**
 * What `StateStore.apply` returns, by command type:
 * kv.* -> boolean (or ApplyError for a lock naming an unknown session); session.create -> SessionCreated;
 * session.destroy/invalidate -> true; txn -> TxnResponse (ApplyError for limit violations);
 * catalog.* -> true or ApplyError; coordinate.batch-update, tombstone.reap -> true.
 */
export type ApplyResult = boolean | SessionCreated | TxnResponse | ApplyError;
