import type { Command } from "@cairn/fsm";
import type { ApplyLimiter } from "./limiter.js";

/**
 * The local writes of one replication pass: each object is one Raft command sent at the limiter's pace; one
 * the state machine refuses (it answers `{ error }` rather than throwing, having stored nothing) or that
 * fails to apply is recorded in `skipped`, and the pass goes on.
 */
export class ReplicationWrites {
  readonly skipped: string[] = [];
  updates = 0;

  constructor(
    private readonly limiter: ApplyLimiter,
    private readonly send: (command: Command) => Promise<unknown>,
  ) {}

  /** Applies `command` (describing its object as `what`); true when it was stored. */
  readonly apply = async (command: Command, what: string): Promise<boolean> => {
    await this.limiter.take();
    try {
      const result = await this.send(command);
      if (typeof result === "object" && result !== null && "error" in result) {
        this.skipped.push(`${what}: ${String(result.error)}`);
        return false;
      }
      this.updates++;
      return true;
    } catch (err) {
      this.skipped.push(`${what}: ${(err as Error).message}`);
      return false;
    }
  };
}
