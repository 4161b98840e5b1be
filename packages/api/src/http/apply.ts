import type { ApplyResult, Command } from "@cairn/fsm";
import type { ClusterBackend } from "../backend.js";
import { HttpError } from "./errors.js";

type Refusal = Extract<ApplyResult, { error: string }>;

function isRefusal(result: ApplyResult): result is Refusal {
  return typeof result === "object" && result !== null && "error" in result;
}

/**
 * Sends a command down the write path. A refusal by the state machine (nothing changed) becomes an
 * HttpError with the status and one-line message the state machine chose.
 */
export async function applyCommand(
  ctx: { readonly backend: Pick<ClusterBackend, "apply"> },
  command: Command,
): Promise<Exclude<ApplyResult, Refusal>> {
  const result = await ctx.backend.apply(command);
  if (isRefusal(result)) throw new HttpError(result.status, result.error);
  return result;
}
