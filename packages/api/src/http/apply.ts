import { type ApplyError, type ApplyResult, type Command, isApplyError } from "@cairn/fsm";
import type { ClusterBackend } from "../backend.js";
import { HttpError, statusOf } from "./errors.js";

/**
 * Sends a command down the write path. A refusal by the state machine (nothing changed) becomes an
 * HttpError with the status of its kind and the one-line message the state machine chose.
 */
export async function applyCommand(
  ctx: { readonly backend: Pick<ClusterBackend, "apply"> },
  command: Command,
): Promise<Exclude<ApplyResult, ApplyError>> {
  const result = await ctx.backend.apply(command);
  if (isApplyError(result)) throw new HttpError(statusOf(result.kind), result.error);
  return result;
}
