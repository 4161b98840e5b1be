export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

/**
 * Exponential reconnect delay with jitter: after a restart every server redials at once, and jitter keeps
 * those dials from arriving in lockstep. The delay for attempt n lies in [d/2, d] with d = min(max, initial·2ⁿ).
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly options: BackoffOptions,
    private readonly random: () => number,
  ) {}

  next(): number {
    const ceiling = Math.min(this.options.maxMs, this.options.initialMs * 2 ** this.attempt);
    if (ceiling < this.options.maxMs) this.attempt++;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  reset(): void {
    this.attempt = 0;
  }
}
