/**
 * Lifeguard's local health awareness: a score in [0, max) that rises when this member misses acks or nacks
 * it should have received (a sign that it, not its peers, is slow) and falls on successful probes. Timeouts
 * are multiplied by (score + 1), so a struggling member probes more patiently instead of accusing others.
 */
export class Awareness {
  private score = 0;

  constructor(private readonly max: number) {}

  applyDelta(delta: number): void {
    this.score = Math.min(this.max - 1, Math.max(0, this.score + delta));
  }

  healthScore(): number {
    return this.score;
  }

  scale(timeout: number): number {
    return timeout * (this.score + 1);
  }
}
