/** Waits `ms` (a timer in production; tests inject one that resolves at once or on their own clock). */
export type Wait = (ms: number) => Promise<void>;

export const realWait: Wait = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/**
 * Spreads local replication writes to at most `perSecond` (spec 1: 100 local ACL updates per second), so a
 * large catch-up does not crowd out the secondary's own Raft traffic.
 */
export class ApplyLimiter {
  #next = 0;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number,
    private readonly wait: Wait = realWait,
  ) {}

  /** Resolves when the next update may go out. */
  async take(): Promise<void> {
    const spacing = 1000 / this.perSecond;
    const now = this.now();
    const at = Math.max(now, this.#next);
    this.#next = at + spacing;
    if (at > now) await this.wait(at - now);
  }
}
