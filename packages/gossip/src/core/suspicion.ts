/**
 * Lifeguard's suspicion timer: starts at `max` and falls towards `min` as independent members confirm the
 * suspicion, on a log scale, reaching `min` after `k` confirmations. Pure: the deadline is recomputed from the
 * start time and the confirmation count; the caller compares it with its clock.
 */
export class Suspicion {
  private readonly confirmers = new Set<string>();

  constructor(
    readonly startedAt: number,
    private readonly k: number,
    private readonly min: number,
    private readonly max: number,
    accuser: string,
  ) {
    // The first accuser does not count as a confirmation of its own claim.
    this.confirmers.add(accuser);
  }

  /** Records a confirmation; true if it was new (and so worth re-broadcasting). */
  confirm(from: string): boolean {
    if (this.confirmations() >= this.k || this.confirmers.has(from)) return false;
    this.confirmers.add(from);
    return true;
  }

  confirmations(): number {
    return this.confirmers.size - 1;
  }

  deadline(): number {
    return this.startedAt + suspicionDuration(this.confirmations(), this.k, this.min, this.max);
  }
}

/** memberlist's remainingSuspicionTime without the elapsed part: max - frac × (max - min), floored at min. */
export function suspicionDuration(n: number, k: number, min: number, max: number): number {
  if (k < 1) return min;
  const frac = Math.log(n + 1) / Math.log(k + 1);
  const raw = Math.floor(max - frac * (max - min));
  return Math.max(raw, min);
}
