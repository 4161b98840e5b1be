import type { Logger } from "pino";
import { Pause } from "../pause.js";

export interface JoinLoopOptions {
  /** What the loop is, for logs and errors: `retry_join`, `retry_join_wan`, `rejoin`. */
  what: string;
  targets: readonly string[];
  /** One attempt at all targets; resolves with how many answered. */
  attempt: (targets: readonly string[]) => Promise<number>;
  intervalMs: number;
  /** Attempts before giving up; 0 retries forever. */
  maxAttempts: number;
  log: Logger;
}

/** `maxAttempts` attempts went by without any target answering. */
export class JoinRetriesExhaustedError extends Error {
  override readonly name = "JoinRetriesExhaustedError";
}

/**
 * Consul's retry_join: attempts at every target until one answers, pausing `intervalMs` between attempts.
 * Resolves true once joined, false when stopped first; rejects with JoinRetriesExhaustedError.
 */
export class JoinLoop {
  private stopped = false;
  private readonly pause = new Pause();

  constructor(private readonly options: JoinLoopOptions) {}

  async run(): Promise<boolean> {
    const { what, targets, attempt, intervalMs, maxAttempts, log } = this.options;
    for (let attempts = 1; !this.stopped; attempts++) {
      log.info({ targets }, `${what}: joining cluster`);
      const answered = await attempt(targets).catch((err: Error) => {
        log.debug({ err: err.message }, `${what}: attempt failed`);
        return 0;
      });
      if (this.stopped) return false;
      if (answered > 0) {
        log.info({ answered }, `${what}: join completed`);
        return true;
      }
      if (maxAttempts > 0 && attempts >= maxAttempts) {
        throw new JoinRetriesExhaustedError(`${what}: no agent answered after ${maxAttempts} attempts`);
      }
      log.warn({ targets, retryInMs: intervalMs }, `${what}: join failed, will retry`);
      await this.pause.wait(intervalMs);
    }
    return false;
  }

  stop(): void {
    this.stopped = true;
    this.pause.wake();
  }
}
